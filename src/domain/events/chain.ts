/** The chain's facts, as the indexer records them from logs; a reorg can take each back. */
import type { Address, Hex, OrderData, OrderUid } from './order-data.js';
import type { OrderCancelledV1 } from './orders.js';

export interface ChainCoordinates {
  chainId: number;
  blockNumber: number;
  blockHash: Hex;
  logIndex: number;
  txHash: Hex;
}

export interface TradeSettledV1 {
  network: string;
  uid: OrderUid;
  owner: Address;
  auctionId: number | null;
  sellToken: Address;
  buyToken: Address;
  /** Sell token transferred, fee included. */
  sellAmount: string;
  buyAmount: string;
  feeAmount: string;
  settledAt: string;
  chain: ChainCoordinates;
}

export interface PreSignatureSetV1 {
  network: string;
  uid: OrderUid;
  owner: Address;
  signed: boolean;
  chain: ChainCoordinates;
}

/** One `Settlement` log of the settlement contract: a solver settled a batch in `chain.txHash`. */
export interface SettlementObservedV1 {
  network: string;
  solver: Address;
  /** The block's timestamp, ISO 8601 UTC. */
  settledAt: string;
  chain: ChainCoordinates;
}

/**
 * Why an order placed on chain cannot trade, in the reference's words (`onchainOrderData.
 * placementError`): `invalidOrderData` for a placement that is not the eth-flow contract's own
 * (an owner other than the contract, an order it does not hold, one it could not have placed),
 * `nonZeroFee` for a signed fee (orders pay no fee up front). The others are the reference's
 * quote checks, kept for its vocabulary.
 */
export type PlacementError =
  | 'validToTooFarInTheFuture'
  | 'disabledOrderClass'
  | 'preValidationError'
  | 'invalidQuote'
  | 'insufficientFee'
  | 'nonZeroFee'
  | 'invalidOrderData'
  | 'other';

/**
 * An `OrderPlacement` log of an eth-flow contract: an order selling native ETH, paid for in the
 * placing transaction, owned (and signed by EIP-1271) by the contract, the sender's to withdraw.
 * The order's own `validTo` never expires; the trader's deadline is `userValidTo`.
 */
export interface EthFlowOrderPlacedV1 {
  network: string;
  uid: OrderUid;
  /** The owner the placement states (the eth-flow contract, unless `invalidOrderData`). */
  owner: Address;
  /** The eth-flow contract that emitted the log: `wrapAll` on it wraps the order's ETH. */
  ethFlowContract: Address;
  /** Who sent the ETH: `onchainOrderData.sender` and `onchainUser`. */
  sender: Address;
  order: OrderData;
  /** The placement's signature bytes (for EIP-1271, the owner's address). */
  signature: Hex;
  userValidTo: number;
  /** The quote the trader placed it with (an int64, in decimal); null when the log had none. */
  quoteId: string | null;
  placementError: PlacementError | null;
  /** The block's timestamp: the order's creation date. */
  placedAt: string;
  chain: ChainCoordinates;
}

/** An `OrderRefund` log: an expired eth-flow order was closed and its ETH returned. */
export interface EthFlowOrderRefundedV1 {
  network: string;
  uid: OrderUid;
  /** Who asked for the refund (anyone may, once the order expired). */
  refunder: Address;
  chain: ChainCoordinates;
}

/** The chain facts the indexer records; a reorg can take any of them back. */
export type ChainFact =
  | { type: 'TradeSettled'; data: TradeSettledV1 }
  | { type: 'OrderCancelled'; data: OrderCancelledV1 & { chain: ChainCoordinates } }
  | { type: 'PreSignatureSet'; data: PreSignatureSetV1 }
  | { type: 'SettlementObserved'; data: SettlementObservedV1 }
  | { type: 'EthFlowOrderPlaced'; data: EthFlowOrderPlacedV1 }
  | { type: 'EthFlowOrderRefunded'; data: EthFlowOrderRefundedV1 };

/**
 * The compensating event of a reorg: the log behind `reverted` is no longer on the canonical
 * chain, so everything derived from it is undone. Appended to the stream of the reverted fact.
 */
export interface ChainFactRevertedV2 {
  network: string;
  /** The ledger id of the event it takes back. */
  revertedEventId: string;
  reverted: ChainFact;
  reason: 'reorg';
}
