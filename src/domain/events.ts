/**
 * The ledger's own language: every fact batchbook knows is one of these events.
 *
 * Amounts are decimal strings, addresses and hashes lowercase 0x-hex, times ISO 8601 UTC.
 * Each event type carries a schema version; payload schemas live in schemas/events/ and old
 * versions are upcast on read (src/domain/upcast.ts), never rewritten.
 */
import type {
  Address,
  AppDataRegisteredV1,
  AuctionClosedV5,
  ChainCoordinates,
  ChainFactRevertedV2 as ChainFactRevertedSchema,
  DeploymentIdentifiedV1,
  EthFlowOrderPlacedV1,
  EthFlowOrderRefundedV1,
  Filtered,
  Hex,
  Interaction,
  OrderCancelledV1,
  OrderClass,
  OrderData,
  OrderPlacedV1,
  OrderUid,
  PreSignatureSetV1,
  QuoteCreatedV1,
  SettlementFailedV1,
  SettlementObservedV1,
  SettlementSubmittedV1,
  SigningScheme,
  SubscriptionAddedV2,
  SubscriptionRemovedV2,
  SubscriptionVerifiedV1,
  TradeSettledV1,
} from '../../schemas/event-payloads.generated.js';

/**
 * The payloads' shapes are their schemas' (schemas/events/), generated; what follows names their
 * parts, and says by hand what a generated type cannot.
 */
export type * from '../../schemas/event-payloads.generated.js';

export type SellTokenBalance = OrderData['sellTokenBalance'];
export type BuyTokenBalance = OrderData['buyTokenBalance'];

/** The quote an order was linked to, as shown in the order's `quote` field. */
export type LinkedQuote = NonNullable<OrderPlacedV1['quote']>;

export type CancellationSource = OrderCancelledV1['source'];

/** The order a quote prices, as the API's `OrderQuote` shows it (amounts after the fee). */
export type QuotedOrder = QuoteCreatedV1['quote'];

/**
 * Why an order placed on chain cannot trade, in the reference's words (`onchainOrderData.
 * placementError`): `invalidOrderData` for a placement that is not the eth-flow contract's own
 * (an owner other than the contract, an order it does not hold, one it could not have placed),
 * `nonZeroFee` for a signed fee (orders pay no fee up front). The others are the reference's
 * quote checks, kept for its vocabulary.
 */
export type PlacementError = NonNullable<EthFlowOrderPlacedV1['placementError']>;

/**
 * The chain facts the indexer records; a reorg can take any of them back. A cancellation from
 * the chain carries its coordinates (the schema's `if`/`then`, which a generated type cannot say).
 */
export type ChainFact =
  | { type: 'TradeSettled'; data: TradeSettledV1 }
  | { type: 'OrderCancelled'; data: OrderCancelledV1 & { chain: ChainCoordinates } }
  | { type: 'PreSignatureSet'; data: PreSignatureSetV1 }
  | { type: 'SettlementObserved'; data: SettlementObservedV1 }
  | { type: 'EthFlowOrderPlaced'; data: EthFlowOrderPlacedV1 }
  | { type: 'EthFlowOrderRefunded'; data: EthFlowOrderRefundedV1 };

export type ChainFactRevertedV2 = Omit<ChainFactRevertedSchema, 'reverted'> & {
  reverted: ChainFact;
};

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
export type FilterReason = Filtered[number]['reason'];

/**
 * An order as an auction took it in: its UID and what earlier batches had filled by the cut.
 * The rest of it is its `OrderPlaced`, which never changes: an auction does not copy it.
 */
export type AuctionedOrder = AuctionClosedV5['orders'][number];

/** One solver's proposal for an auction, as the competition ranked it (reference §6). */
export type RankedSolution = AuctionClosedV5['solutions'][number];

/** One traded order of a solution: what the contract will move for it. */
export type SolutionOrder = RankedSolution['orders'][number];

export type SettlementFailureReason = SettlementFailedV1['reason'];

/** Where an account's notices are delivered. */
export type DeliveryChannel = SubscriptionAddedV2['channel'];

export type SubscriptionAuthority = SubscriptionAddedV2['authorisedBy'];

/**
 * How a subscription's destination shows that its owner wants the account's notices; nothing
 * is delivered to it before (README, Notifications).
 */
export type DestinationVerification = SubscriptionAddedV2['verification'];

/** The methods a SubscriptionVerified records. */
export type VerificationMethod = SubscriptionVerifiedV1['method'];

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
