/**
 * The ledger's own language: every fact batchbook knows is one of these events.
 *
 * Amounts are decimal strings, addresses and hashes lowercase 0x-hex, times ISO 8601 UTC.
 * Each event type carries a schema version; payload schemas live in schemas/events/ and old
 * versions are upcast on read (src/domain/upcast.ts), never rewritten.
 */
import type {
  AuctionClosedV5,
  SettlementFailedV1,
  SettlementSubmittedV1,
} from './events/auctions.js';
import type {
  ChainFactRevertedV2,
  EthFlowOrderPlacedV1,
  EthFlowOrderRefundedV1,
  PreSignatureSetV1,
  SettlementObservedV1,
  TradeSettledV1,
} from './events/chain.js';
import type { Address, Hex, OrderUid } from './events/order-data.js';
import type {
  AppDataRegisteredV1,
  OrderCancelledV1,
  OrderPlacedV1,
  QuoteCreatedV1,
} from './events/orders.js';
import type {
  DeploymentIdentifiedV1,
  SubscriptionAddedV2,
  SubscriptionRemovedV2,
  SubscriptionVerifiedV1,
} from './events/subscriptions.js';

export type * from './events/order-data.js';
export type * from './events/orders.js';
export type * from './events/chain.js';
export type * from './events/auctions.js';
export type * from './events/subscriptions.js';

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
