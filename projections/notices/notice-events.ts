/** What the notices projector reads of the ledger: orders, their chain facts, auctions, subscriptions. */
import type { EventOf } from '../events.js';

export type NoticeEvent = EventOf<
  | 'OrderPlaced'
  | 'OrderCancelled'
  | 'TradeSettled'
  | 'PreSignatureSet'
  | 'ChainFactReverted'
  | 'AuctionClosed'
  | 'SettlementFailed'
  | 'SubscriptionAdded'
  | 'SubscriptionVerified'
  | 'SubscriptionRemoved'
>;

export const NOTICE_EVENT_TYPES: ReadonlySet<NoticeEvent['type']> = new Set([
  'OrderPlaced',
  'OrderCancelled',
  'TradeSettled',
  'PreSignatureSet',
  'ChainFactReverted',
  'AuctionClosed',
  'SettlementFailed',
  'SubscriptionAdded',
  'SubscriptionVerified',
  'SubscriptionRemoved',
]);

export type SubscriptionEvent = EventOf<
  'SubscriptionAdded' | 'SubscriptionVerified' | 'SubscriptionRemoved'
>;
