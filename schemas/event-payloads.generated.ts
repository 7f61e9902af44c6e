/* Generated from schemas/events/ by `npm run generate:schema-types`: do not edit. */

/** Hex values as the ledger holds them: lowercase 0x-hex (the schemas' patterns say how long). */
export type Hex = `0x${string}`;
export type Address = Hex;
export type OrderUid = Hex;

export type Network = string;
/** the order fields the EIP-712 Order struct covers (a schema that adds none closes it with unevaluatedProperties) */
export type OrderData = OrderFields & {
  partiallyFillable: boolean;
};
export type NullableAddress = Address | null;
/** an unsigned integer below 10^78 (uint256 fits), in decimal */
export type Amount = string;
export type Count = number;
export type Bytes32 = Hex;
export type OrderKind = 'sell' | 'buy';
export type SigningScheme = 'eip712' | 'ethsign' | 'presign' | 'eip1271';
export type OrderClass = 'market' | 'limit' | 'liquidity';
/** ISO 8601 UTC, as Date.prototype.toISOString writes it */
export type Time = string;
export type Interactions = Interaction[];
export type Filtered = {
  uid: OrderUid;
  reason:
    | 'InsufficientBalance'
    | 'MissingNativePrice'
    | 'UntrampolinedInteractions'
    | 'InvalidSignature'
    | 'DustOrder';
}[];

/** An accepted order: the signed order, its owner and UID, class, creation time, app data and linked quote. */
export interface OrderPlacedV1 {
  network: Network;
  uid: OrderUid;
  owner: Address;
  order: OrderData;
  signingScheme: SigningScheme;
  /** Raw API signature bytes: 65 bytes for ECDSA, the contract signature for eip1271, `0x` for presign. */
  signature: Hex;
  class: OrderClass;
  /** ISO 8601 UTC, decided by the command handler from its clock. */
  creationDate: Time;
  settlementContract: Address;
  /** The full app-data document whose keccak hash is `order.appData`, when known. */
  fullAppData: string | null;
  quoteId: Count | null;
  quote: {
    id: Count;
    gasAmount: Amount;
    gasPrice: Amount;
    /** a float in plain decimal as the reference prints it; older events may carry JavaScript's exponent notation (3e-9) */
    sellTokenPrice: string;
    sellAmount: Amount;
    buyAmount: Amount;
    feeAmount: Amount;
    solver: Address;
    verified: boolean;
    metadata: {
      [k: string]: unknown;
    };
  } | null;
  interactions: {
    pre: Interactions;
    post: Interactions;
  };
}
/** the order fields the EIP-712 Order struct covers, but partiallyFillable (a schema that adds none closes it with unevaluatedProperties) */
export interface OrderFields {
  sellToken: Address;
  buyToken: Address;
  /** null means "the owner" (signed as the zero address). */
  receiver: NullableAddress;
  sellAmount: Amount;
  buyAmount: Amount;
  validTo: Count;
  /** The 32-byte app-data hash that was signed. */
  appData: Bytes32;
  feeAmount: Amount;
  kind: OrderKind;
  sellTokenBalance: 'erc20' | 'external' | 'internal';
  buyTokenBalance: 'erc20' | 'internal';
}
export interface Interaction {
  target: Address;
  value: Amount;
  callData: Hex;
}
/** A signed cancellation (api) or an on-chain invalidation (chain, with its coordinates). */
export interface OrderCancelledV1 {
  network: Network;
  uid: OrderUid;
  source: 'api' | 'chain';
  /** Human-readable reason, e.g. "signed cancellation" or "invalidateOrder". */
  reason: string;
  cancelledAt: Time;
  /** The address whose signature (api) or transaction (chain) cancelled the order. */
  by: Address;
  /** Chain coordinates for on-chain invalidations. */
  chain?: ChainCoordinates;
}
export interface ChainCoordinates {
  chainId: number;
  blockNumber: Count;
  blockHash: Bytes32;
  logIndex: Count;
  txHash: Bytes32;
}
/** One execution of an order, from a Trade log of the settlement contract. */
export interface TradeSettledV1 {
  network: Network;
  uid: OrderUid;
  owner: Address;
  auctionId: Count | null;
  sellToken: Address;
  buyToken: Address;
  /** Sell token transferred, fee included. */
  sellAmount: Amount;
  buyAmount: Amount;
  feeAmount: Amount;
  settledAt: Time;
  chain: ChainCoordinates;
}
/** A PreSignature log: the owner set (signed) or revoked a pre-signature. */
export interface PreSignatureSetV1 {
  network: Network;
  uid: OrderUid;
  owner: Address;
  signed: boolean;
  chain: ChainCoordinates;
}
/** One `Settlement` log of the settlement contract: a solver settled a batch in `chain.txHash`. */
export interface SettlementObservedV1 {
  network: Network;
  solver: Address;
  /** The block's timestamp, ISO 8601 UTC. */
  settledAt: Time;
  chain: ChainCoordinates;
}
/** The compensating event of a reorg: the log behind `reverted` is no longer on the canonical chain, so everything derived from it is undone. Appended to the stream of the reverted fact. */
export interface ChainFactRevertedV2 {
  network: Network;
  /** The ledger id of the event it takes back. */
  revertedEventId: string;
  reverted:
    | {
        type: 'TradeSettled';
        data: TradeSettledV1;
      }
    | {
        type: 'OrderCancelled';
        data: OrderCancelledV1;
      }
    | {
        type: 'PreSignatureSet';
        data: PreSignatureSetV1;
      }
    | {
        type: 'SettlementObserved';
        data: SettlementObservedV1;
      }
    | {
        type: 'EthFlowOrderPlaced';
        data: EthFlowOrderPlacedV1;
      }
    | {
        type: 'EthFlowOrderRefunded';
        data: EthFlowOrderRefundedV1;
      };
  reason: 'reorg';
}
/** An `OrderPlacement` log of an eth-flow contract: an order selling native ETH, paid for in the placing transaction, owned (and signed by EIP-1271) by the contract, the sender's to withdraw. The order's own `validTo` never expires; the trader's deadline is `userValidTo`. */
export interface EthFlowOrderPlacedV1 {
  network: Network;
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
  placementError:
    | 'validToTooFarInTheFuture'
    | 'disabledOrderClass'
    | 'preValidationError'
    | 'invalidQuote'
    | 'insufficientFee'
    | 'nonZeroFee'
    | 'invalidOrderData'
    | 'other'
    | null;
  /** The block's timestamp: the order's creation date. */
  placedAt: Time;
  chain: ChainCoordinates;
}
/** An `OrderRefund` log: an expired eth-flow order was closed and its ETH returned. */
export interface EthFlowOrderRefundedV1 {
  network: Network;
  uid: OrderUid;
  /** Who asked for the refund (anyone may, once the order expired). */
  refunder: Address;
  chain: ChainCoordinates;
}
/** A price quote given to `from`; orders placed before `expiration` can link to it. */
export interface QuoteCreatedV1 {
  network: Network;
  /** Strictly increasing per service (a database sequence). */
  id: Count;
  from: Address;
  /** the order the quote prices: the order fields but partiallyFillable, and the signing scheme */
  quote: OrderFields & {
    signingScheme: SigningScheme;
  };
  /** The full app-data document, when the request carried one. */
  fullAppData: string | null;
  onchainOrder: boolean;
  gasAmount: Amount;
  gasPrice: Amount;
  /** a float in plain decimal as the reference prints it; older events may carry JavaScript's exponent notation (3e-9) */
  sellTokenPrice: string;
  solver: Address;
  verified: boolean;
  /** ISO 8601 UTC. */
  createdAt: Time;
  expiration: Time;
}
/** One batch auction of a network: what was cut (orders, prices at `block`), what was left out and why, and every solution with its score and rank; winners are to settle by `deadline`. Version 3 names the auctioned orders instead of copying them (v2 held each in full: megabytes per auction at 10,000 open orders, every few seconds, in an append-only ledger); version 4 gives each solution its solver's id, each trade its solver's fee, and the calls its settlement makes before and after the transfers; version 5 may record only what changed since an earlier auction of the network (`base`; src/domain/auction-record.ts). */
export interface AuctionClosedV5 {
  network: Network;
  /** Strictly increasing per service (a database sequence). */
  id: Count;
  block: Count;
  /** ISO 8601 UTC: the ledger's clock for the auction. */
  cutAt: Time;
  /** ISO 8601 UTC. Until then, the orders of a winning solution whose settlement neither failed nor was observed on chain are in flight: later auctions leave them out. */
  deadline: Time;
  /** The block by which the winners should have settled (the reference's `auctionDeadlineBlock`). */
  deadlineBlock: Count;
  /** The auction of the same network whose cut this one records the changes of; null: the orders, prices and filtered orders below are the cut whole. */
  base: Count | null;
  /**
   * The auction's orders; with a base, those that entered or whose fill moved since it.
   *
   * Items: An order as an auction took it in: its UID and what earlier batches had filled by the cut. The rest of it is its `OrderPlaced`, which never changes: an auction does not copy it.
   */
  orders: {
    uid: OrderUid;
    /** Sell atoms (sell orders) or buy atoms (buy orders) executed in earlier batches. */
    executed: Amount;
  }[];
  /** Orders of the base this auction no longer holds (empty without a base). */
  left: OrderUid[];
  /** Native-token price of each traded token, 1e18 = one native token per token atom × 1e18; with a base, those that moved or are new. */
  prices: Prices;
  /** Tokens the base priced that this auction does not (empty without a base). */
  unpriced: Address[];
  /** Orders left out and why; with a base, those newly left out or for another reason. */
  filtered: Filtered;
  /** Orders the base left out that this auction does not (empty without a base). */
  unfiltered: OrderUid[];
  /**
   * Best first: `solutions[i].rank === i + 1`.
   *
   * Items: One solver's proposal for an auction, as the competition ranked it (reference §6).
   */
  solutions: {
    /** The solver's configured name ("builtin" for the one in process). */
    solver: string;
    /** The address the solver competes as (the reference's `solverAddress`). */
    solverAddress: Address;
    /** The solver's own id of the solution, as its feedback (`/notify`) names it; null in auctions recorded before solvers spoke the published solver engine API. */
    solutionId: number | null;
    /** CIP-38: surplus plus fees in native-token atoms, a decimal string. */
    score: Amount;
    /** 1 is the best: winners first, then by score, filtered-out solutions last. */
    rank: number;
    isWinner: boolean;
    /** Dropped by the fairness filter (reference §6 step 4). */
    filteredOut: boolean;
    /** CIP-67, winners only: the winners' total score had this solver not taken part. */
    referenceScore: Amount | null;
    /** One uniform price per traded token; each trade settles at prices of its own moving its amounts. */
    clearingPrices: {
      [k: string]: Amount;
    };
    /** Items: One traded order of a solution: what the contract will move for it. */
    orders: {
      uid: OrderUid;
      sellToken: Address;
      buyToken: Address;
      /** The trade's `executedAmount`: sell atoms (sell orders) or buy atoms (buy orders). */
      executedAmount: Amount;
      /** Sell atoms the owner pays (the fee included) and buy atoms the receiver gets. */
      sellAmount: Amount;
      buyAmount: Amount;
      /** Sell atoms the solver keeps as its fee (limit orders; the settlement contract holds them). */
      fee: Amount;
    }[];
    /** Its calls between the transfers in and out. */
    interactions: Interactions;
    /** The solution's own calls before the transfers in (the orders' pre-hooks follow them). */
    preInteractions: Interactions;
    /** Its calls after the transfers out (the orders' post-hooks follow them). */
    postInteractions: Interactions;
  }[];
}
/** native-token price of each token, 1e18-scaled */
export interface Prices {
  [k: string]: Amount;
}
/** A winning solution's `settle()` transaction was sent (not yet known to have landed). */
export interface SettlementSubmittedV1 {
  network: Network;
  auctionId: Count;
  /** The rank of the winning solution in its `AuctionClosed`. */
  rank: number;
  /** The driver account that sent it. */
  from: Address;
  txHash: Bytes32;
  nonce: Count;
  gasLimit: Amount;
  submittedAt: Time;
}
/** A winning solution did not settle: its orders return to the next auctions. */
export interface SettlementFailedV1 {
  network: Network;
  auctionId: Count;
  rank: number;
  /** Null when no transaction was sent (the simulation reverted, or sending failed). */
  txHash: Bytes32 | null;
  reason: 'simulationFailed' | 'reverted' | 'timedOut' | 'notSent';
  /** What the node said, for operators. */
  detail: string;
  failedAt: Time;
}
/** An app-data document registered under its keccak hash. */
export interface AppDataRegisteredV1 {
  network: Network;
  hash: Bytes32;
  fullAppData: string;
  registeredAt: Time;
}
/** An account subscribed a delivery channel to its notices (on every network). */
export interface SubscriptionAddedV2 {
  /** A UUID, the handle to remove it by. */
  id: string;
  account: Address;
  /** Where the account's notices are delivered. */
  channel:
    | {
        kind: 'webhook';
        url: string;
        secret: string;
      }
    | {
        kind: 'email';
        address: string;
      }
    | {
        kind: 'webpush';
        endpoint: string;
        keys: {
          p256dh: string;
          auth: string;
        };
      }
    | {
        kind: 'telegram';
        chatId: string;
      };
  addedAt: Time;
  authorisedBy: 'signature' | 'apiKey';
  /** The EIP-712 digest the account signed for this request; null with the API key. */
  signedDigest: Bytes32 | null;
  /** How the destination shows that its owner wants the account's notices; nothing is delivered to it before (README, Notifications). */
  verification:
    | {
        method: 'emailCode';
        code: string;
      }
    | {
        method: 'webhookChallenge';
        challenge: string;
      }
    | {
        method: 'telegramCode';
        code: string;
      }
    | {
        method: 'pushSubscription';
      }
    | {
        method: 'legacy';
      };
}
/** The destination of a subscription answered its verification: notices may go to it. */
export interface SubscriptionVerifiedV1 {
  id: string;
  account: Address;
  method: 'emailCode' | 'webhookChallenge' | 'telegramCode';
  verifiedAt: Time;
}
/** An account removed one of its delivery channels: the digest it signed for the request (null with the API key). */
export interface SubscriptionRemovedV2 {
  id: string;
  account: Address;
  removedAt: Time;
  authorisedBy: 'signature' | 'apiKey';
  /** The EIP-712 digest the account signed for this request; null with the API key. */
  signedDigest: Bytes32 | null;
}
/** This deployment's identity (one ledger, whatever number of instances serve it): the salt of the EIP-712 domain accounts sign subscription requests in, so that a signature made for one deployment means nothing to another. */
export interface DeploymentIdentifiedV1 {
  deploymentId: Bytes32;
  identifiedAt: Time;
}
