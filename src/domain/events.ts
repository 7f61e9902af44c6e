/**
 * The ledger's own language: every fact batchbook knows is one of these events.
 *
 * Amounts are decimal strings, addresses and hashes lowercase 0x-hex, times ISO 8601 UTC.
 * Each event type carries a schema version; payload schemas live in schemas/events/ and old
 * versions are upcast on read (src/domain/upcast.ts), never rewritten.
 */

export type Hex = `0x${string}`;
export type Address = Hex;
export type OrderUid = Hex;

export type OrderKind = 'sell' | 'buy';
export type SellTokenBalance = 'erc20' | 'external' | 'internal';
export type BuyTokenBalance = 'erc20' | 'internal';
export type SigningScheme = 'eip712' | 'ethsign' | 'presign' | 'eip1271';
export type OrderClass = 'market' | 'limit' | 'liquidity';

/** The order fields covered by the EIP-712 `Order` struct, in API form. */
export interface OrderData {
  sellToken: Address;
  buyToken: Address;
  /** null means "the owner" (signed as the zero address). */
  receiver: Address | null;
  sellAmount: string;
  buyAmount: string;
  validTo: number;
  /** The 32-byte app-data hash that was signed. */
  appData: Hex;
  feeAmount: string;
  kind: OrderKind;
  partiallyFillable: boolean;
  sellTokenBalance: SellTokenBalance;
  buyTokenBalance: BuyTokenBalance;
}

export interface Interaction {
  target: Address;
  value: string;
  callData: Hex;
}

/** The quote an order was linked to, as shown in the order's `quote` field. */
export interface LinkedQuote {
  id: number;
  gasAmount: string;
  gasPrice: string;
  sellTokenPrice: string;
  sellAmount: string;
  buyAmount: string;
  feeAmount: string;
  solver: Address;
  verified: boolean;
  metadata: Record<string, unknown>;
}

export interface OrderPlacedV1 {
  network: string;
  uid: OrderUid;
  owner: Address;
  order: OrderData;
  signingScheme: SigningScheme;
  /** Raw API signature bytes: 65 bytes for ECDSA, the contract signature for eip1271, `0x` for presign. */
  signature: Hex;
  class: OrderClass;
  /** ISO 8601 UTC, decided by the command handler from its clock. */
  creationDate: string;
  settlementContract: Address;
  /** The full app-data document whose keccak hash is `order.appData`, when known. */
  fullAppData: string | null;
  quoteId: number | null;
  quote: LinkedQuote | null;
  interactions: { pre: Interaction[]; post: Interaction[] };
}

export type CancellationSource = 'api' | 'chain';

export interface OrderCancelledV1 {
  network: string;
  uid: OrderUid;
  source: CancellationSource;
  /** Human-readable reason, e.g. "signed cancellation" or "invalidateOrder". */
  reason: string;
  cancelledAt: string;
  /** The address whose signature (api) or transaction (chain) cancelled the order. */
  by: Address;
  /** Chain coordinates for on-chain invalidations. */
  chain?: ChainCoordinates;
}

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

/** The order a quote prices, as the API's `OrderQuote` shows it (amounts after the fee). */
export type QuotedOrder = Omit<OrderData, 'partiallyFillable'> & { signingScheme: SigningScheme };

/** A price quote given to `from`; orders placed before `expiration` can link to it. */
export interface QuoteCreatedV1 {
  network: string;
  /** Strictly increasing per service (a database sequence). */
  id: number;
  from: Address;
  quote: QuotedOrder;
  /** The full app-data document, when the request carried one. */
  fullAppData: string | null;
  onchainOrder: boolean;
  gasAmount: string;
  gasPrice: string;
  /** Native-token atoms per sell-token atom, as a decimal string of a float (the reference's). */
  sellTokenPrice: string;
  solver: Address;
  verified: boolean;
  /** ISO 8601 UTC. */
  createdAt: string;
  expiration: string;
}

/** An order as an auction hands it to solvers (the reference's `AuctionOrder`). */
export interface AuctionOrder extends OrderData {
  uid: OrderUid;
  owner: Address;
  /** Unix seconds; the reference sends a number where its spec says string (§9.5). */
  created: number;
  /** Sell atoms (sell orders) or buy atoms (buy orders) executed in earlier batches. */
  executed: string;
  preInteractions: Interaction[];
  postInteractions: Interaction[];
  class: OrderClass;
  signingScheme: SigningScheme;
  signature: Hex;
  protocolFees: never[];
}

/**
 * Why a cut left an open order out of the auction. `UntrampolinedInteractions`: the order's
 * interactions call something other than the network's HooksTrampoline (placed before hooks
 * went through it), so it must never settle. `InvalidSignature`: an EIP-1271 owner contract no
 * longer accepts the order's signature. `DustOrder`: what is left of a partially fillable order
 * sells or buys nothing once rounded.
 */
export type FilterReason =
  | 'InsufficientBalance'
  | 'MissingNativePrice'
  | 'UntrampolinedInteractions'
  | 'InvalidSignature'
  | 'DustOrder';

/**
 * An order as an auction took it in: its UID and what earlier batches had filled by the cut.
 * The rest of it is its `OrderPlaced`, which never changes: an auction does not copy it.
 */
export interface AuctionedOrder {
  uid: OrderUid;
  /** Sell atoms (sell orders) or buy atoms (buy orders) executed in earlier batches. */
  executed: string;
}

/** One traded order of a solution: what the contract will move for it. */
export interface SolutionOrder {
  uid: OrderUid;
  sellToken: Address;
  buyToken: Address;
  /** The trade's `executedAmount`: sell atoms (sell orders) or buy atoms (buy orders). */
  executedAmount: string;
  /** Sell atoms the owner pays (the fee included) and buy atoms the receiver gets. */
  sellAmount: string;
  buyAmount: string;
  /** Sell atoms the solver keeps as its fee (limit orders; the settlement contract holds them). */
  fee: string;
}

/** One solver's proposal for an auction, as the competition ranked it (reference §6). */
export interface RankedSolution {
  /** The solver's configured name ("builtin" for the one in process). */
  solver: string;
  /** The address the solver competes as (the reference's `solverAddress`). */
  solverAddress: Address;
  /**
   * The solver's own id of the solution, as its feedback (`/notify`) names it; null in auctions
   * recorded before solvers spoke the published solver engine API.
   */
  solutionId: number | null;
  /** CIP-38: surplus plus fees in native-token atoms, a decimal string. */
  score: string;
  /** 1 is the best: winners first, then by score, filtered-out solutions last. */
  rank: number;
  isWinner: boolean;
  /** Dropped by the fairness filter (reference §6 step 4). */
  filteredOut: boolean;
  /** CIP-67, winners only: the winners' total score had this solver not taken part. */
  referenceScore: string | null;
  /** One uniform price per traded token; each trade settles at prices of its own moving its amounts. */
  clearingPrices: Record<Address, string>;
  orders: SolutionOrder[];
  /** The solution's own calls before the transfers in (the orders' pre-hooks follow them). */
  preInteractions: Interaction[];
  /** Its calls between the transfers in and out. */
  interactions: Interaction[];
  /** Its calls after the transfers out (the orders' post-hooks follow them). */
  postInteractions: Interaction[];
}

/**
 * One batch auction of a network: what was cut (orders, prices at `block`), what was left out
 * and why, and every solution with its score and rank; winners are to settle by `deadline`.
 * Version 3 names the auctioned orders instead of copying them (v2 held each in full: megabytes
 * per auction at 10,000 open orders, every few seconds, in an append-only ledger); version 4
 * gives each solution its solver's id, each trade its solver's fee, and the calls its settlement
 * makes before and after the transfers; version 5 may record only what changed since an earlier
 * auction of the network (`base`; src/domain/auction-record.ts).
 */
export interface AuctionClosedV5 {
  network: string;
  /** Strictly increasing per service (a database sequence). */
  id: number;
  block: number;
  /** ISO 8601 UTC: the ledger's clock for the auction. */
  cutAt: string;
  /**
   * ISO 8601 UTC. Until then, the orders of a winning solution whose settlement neither failed
   * nor was observed on chain are in flight: later auctions leave them out.
   */
  deadline: string;
  /** The block by which the winners should have settled (the reference's `auctionDeadlineBlock`). */
  deadlineBlock: number;
  /**
   * The auction of the same network whose cut this one records the changes of; null: the
   * orders, prices and filtered orders below are the cut whole.
   */
  base: number | null;
  /** The auction's orders; with a base, those that entered or whose fill moved since it. */
  orders: AuctionedOrder[];
  /** Orders of the base this auction no longer holds (empty without a base). */
  left: OrderUid[];
  /**
   * Native-token price of each traded token, 1e18 = one native token per token atom × 1e18;
   * with a base, those that moved or are new.
   */
  prices: Record<Address, string>;
  /** Tokens the base priced that this auction does not (empty without a base). */
  unpriced: Address[];
  /** Orders left out and why; with a base, those newly left out or for another reason. */
  filtered: { uid: OrderUid; reason: FilterReason }[];
  /** Orders the base left out that this auction does not (empty without a base). */
  unfiltered: OrderUid[];
  /** Best first: `solutions[i].rank === i + 1`. */
  solutions: RankedSolution[];
}

/** A winning solution's `settle()` transaction was sent (not yet known to have landed). */
export interface SettlementSubmittedV1 {
  network: string;
  auctionId: number;
  /** The rank of the winning solution in its `AuctionClosed`. */
  rank: number;
  /** The driver account that sent it. */
  from: Address;
  txHash: Hex;
  nonce: number;
  gasLimit: string;
  submittedAt: string;
}

export type SettlementFailureReason = 'simulationFailed' | 'reverted' | 'timedOut' | 'notSent';

/** A winning solution did not settle: its orders return to the next auctions. */
export interface SettlementFailedV1 {
  network: string;
  auctionId: number;
  rank: number;
  /** Null when no transaction was sent (the simulation reverted, or sending failed). */
  txHash: Hex | null;
  reason: SettlementFailureReason;
  /** What the node said, for operators. */
  detail: string;
  failedAt: string;
}

/** Where an account's notices are delivered. */
export type DeliveryChannel =
  /** POST of the notice as JSON, signed with HMAC-SHA256 under `secret` (given to the account once). */
  | { kind: 'webhook'; url: string; secret: string }
  | { kind: 'email'; address: string }
  /** A browser's push subscription (the Push API's `PushSubscription.toJSON()`). */
  | { kind: 'webpush'; endpoint: string; keys: { p256dh: string; auth: string } }
  | { kind: 'telegram'; chatId: string };

export type SubscriptionAuthority = 'signature' | 'apiKey';

/**
 * How a subscription's destination shows that its owner wants the account's notices; nothing
 * is delivered to it before (README, Notifications).
 */
export type DestinationVerification =
  /** A code e-mailed to the address, given back by whoever reads it. */
  | { method: 'emailCode'; code: string }
  /** A challenge POSTed to the URL, which must answer with it. */
  | { method: 'webhookChallenge'; challenge: string }
  /** A code given to the account, to be sent from the chat to the bot. */
  | { method: 'telegramCode'; code: string }
  /**
   * Nothing more: the browser made the push subscription for this server's VAPID key and keeps
   * its decryption keys, and push services refuse messages signed with another key.
   */
  | { method: 'pushSubscription' }
  /** Added before destinations had to show anything (version 1): delivered nothing. */
  | { method: 'legacy' };

/** The methods a SubscriptionVerified records. */
export type VerificationMethod = Extract<
  DestinationVerification,
  { code: string } | { challenge: string }
>['method'];

/** An account subscribed a delivery channel to its notices (on every network). */
export interface SubscriptionAddedV2 {
  /** A UUID, the handle to remove it by. */
  id: string;
  account: Address;
  channel: DeliveryChannel;
  addedAt: string;
  authorisedBy: SubscriptionAuthority;
  /** The EIP-712 digest the account signed for this request; null with the API key. */
  signedDigest: Hex | null;
  verification: DestinationVerification;
}

/** The destination of a subscription answered its verification: notices may go to it. */
export interface SubscriptionVerifiedV1 {
  id: string;
  account: Address;
  method: VerificationMethod;
  verifiedAt: string;
}

export interface SubscriptionRemovedV2 {
  id: string;
  account: Address;
  removedAt: string;
  authorisedBy: SubscriptionAuthority;
  /** The EIP-712 digest the account signed for this request; null with the API key. */
  signedDigest: Hex | null;
}

/**
 * This deployment's identity (one ledger, whatever number of instances serve it): the salt of
 * the EIP-712 domain accounts sign subscription requests in, so that a signature made for one
 * deployment means nothing to another.
 */
export interface DeploymentIdentifiedV1 {
  deploymentId: Hex;
  identifiedAt: string;
}

export interface AppDataRegisteredV1 {
  network: string;
  hash: Hex;
  fullAppData: string;
  registeredAt: string;
}

export interface EventPayloads {
  OrderPlaced: OrderPlacedV1;
  OrderCancelled: OrderCancelledV1;
  TradeSettled: TradeSettledV1;
  PreSignatureSet: PreSignatureSetV1;
  SettlementObserved: SettlementObservedV1;
  ChainFactReverted: ChainFactRevertedV2;
  EthFlowOrderPlaced: EthFlowOrderPlacedV1;
  EthFlowOrderRefunded: EthFlowOrderRefundedV1;
  QuoteCreated: QuoteCreatedV1;
  AuctionClosed: AuctionClosedV5;
  SettlementSubmitted: SettlementSubmittedV1;
  SettlementFailed: SettlementFailedV1;
  AppDataRegistered: AppDataRegisteredV1;
  SubscriptionAdded: SubscriptionAddedV2;
  SubscriptionVerified: SubscriptionVerifiedV1;
  SubscriptionRemoved: SubscriptionRemovedV2;
  DeploymentIdentified: DeploymentIdentifiedV1;
}

export type EventType = keyof EventPayloads;

/** The current schema version of each event type. */
export const EVENT_VERSIONS: { readonly [T in EventType]: number } = {
  OrderPlaced: 1,
  OrderCancelled: 1,
  TradeSettled: 1,
  PreSignatureSet: 1,
  SettlementObserved: 1,
  // 2: eth-flow placements and refunds may be taken back too.
  ChainFactReverted: 2,
  EthFlowOrderPlaced: 1,
  EthFlowOrderRefunded: 1,
  QuoteCreated: 1,
  AuctionClosed: 5,
  SettlementSubmitted: 1,
  SettlementFailed: 1,
  AppDataRegistered: 1,
  SubscriptionAdded: 2,
  SubscriptionVerified: 1,
  SubscriptionRemoved: 2,
  DeploymentIdentified: 1,
};

/** A domain event of the current schema version. */
export type DomainEvent = {
  [T in EventType]: { type: T; data: EventPayloads[T] };
}[EventType];

/** Stream names. Each network's data is its own, so every stream name carries the network. */
export const streams = {
  /** What the API decided about an order: its placement and signed cancellations. */
  order: (network: string, uid: OrderUid): string => `order-${network}-${uid}`,
  /**
   * What the chain says about an order: trades, pre-signatures, invalidations. Its own stream,
   * because the chain may speak of a UID before the order is placed (a pre-signature comes
   * first by design), and the placement's `noStream` append must still find the order stream
   * new.
   */
  orderOnChain: (network: string, uid: OrderUid): string => `onchain-${network}-${uid}`,
  /** The `Settlement` logs of one transaction. */
  settlement: (network: string, txHash: Hex): string => `settlement-${network}-${txHash}`,
  appData: (network: string, hash: Hex): string => `appdata-${network}-${hash}`,
  quote: (network: string, id: number): string => `quote-${network}-${id}`,
  /** An account's delivery channels: accounts are the same on every network. */
  subscriptions: (account: Address): string => `subscriptions-${account}`,
  /** An auction and what became of its winners' settlements. */
  auction: (network: string, id: number): string => `auction-${network}-${id}`,
  /** The deployment's identity. */
  deployment: (): string => 'deployment',
} as const;

/** Every stream batchbook writes starts with one of these prefixes (used by subscription filters). */
export const STREAM_PREFIXES = [
  'order-',
  'onchain-',
  'settlement-',
  'appdata-',
  'quote-',
  'auction-',
  'subscriptions-',
  'deployment',
] as const;

/** The stream each event belongs to: the API's facts and the chain's facts never share one. */
export function streamOf(event: DomainEvent): string {
  switch (event.type) {
    case 'OrderPlaced':
      return streams.order(event.data.network, event.data.uid);
    case 'OrderCancelled':
      return event.data.source === 'api'
        ? streams.order(event.data.network, event.data.uid)
        : streams.orderOnChain(event.data.network, event.data.uid);
    case 'TradeSettled':
    case 'PreSignatureSet':
    case 'EthFlowOrderPlaced':
    case 'EthFlowOrderRefunded':
      return streams.orderOnChain(event.data.network, event.data.uid);
    case 'SettlementObserved':
      return streams.settlement(event.data.network, event.data.chain.txHash);
    case 'ChainFactReverted':
      return streamOf(event.data.reverted);
    case 'AppDataRegistered':
      return streams.appData(event.data.network, event.data.hash);
    case 'QuoteCreated':
      return streams.quote(event.data.network, event.data.id);
    case 'AuctionClosed':
      return streams.auction(event.data.network, event.data.id);
    case 'SettlementSubmitted':
    case 'SettlementFailed':
      return streams.auction(event.data.network, event.data.auctionId);
    case 'SubscriptionAdded':
    case 'SubscriptionVerified':
    case 'SubscriptionRemoved':
      return streams.subscriptions(event.data.account);
    case 'DeploymentIdentified':
      return streams.deployment();
  }
}
