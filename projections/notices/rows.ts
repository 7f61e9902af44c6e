/**
 * The rows the notices projector reads and writes (./statements.ts), as the pure steps of a batch
 * take and give them: amounts as decimal strings, times as ISO text.
 */
import type { DeliveryChannel, DestinationVerification } from '../../src/domain/events.js';
import type { NoticeMetadata, NoticeType } from '../../src/domain/notices.js';

/** A `notice_orders` row, amounts as decimal strings. */
export interface NoticeOrderRow {
  network: string;
  uid: string;
  owner: string;
  sell_token: string;
  buy_token: string;
  sell_amount: string;
  buy_amount: string;
  kind: string;
  partially_fillable: boolean;
  valid_to: number;
  executed_sell: string;
  executed_buy: string;
  executed_fee: string;
  filled: boolean;
  api_cancelled: boolean;
  chain_invalidations: number;
  cancel_seen: boolean;
  expired: boolean;
  short_of_balance: boolean;
  /** The winning solution (auction id, rank) holding the order's expiry, and until when. */
  held_auction: number | null;
  held_rank: number | null;
  held_until: number | null;
  /** Signed with `presign`: it has notices only once `presigned`. */
  presign: boolean;
  /** A signed pre-signature of its UID is on the canonical chain. */
  presigned: boolean;
}

/** A `notice_presignatures` row: the signed PreSignature logs of a UID on the canonical chain. */
export interface PresignatureRow {
  network: string;
  uid: string;
  signed_logs: number;
}

export interface NoticeRow {
  id: string;
  account: string;
  network: string;
  type: NoticeType;
  message: string;
  timestamp: string;
  metadata: NoticeMetadata;
}

/** A `subscriptions` row as the batch reads it. */
export interface LoadedSubscription {
  id: string;
  account: string;
  channel: DeliveryChannel;
  removed: boolean;
  verified: boolean;
}

export interface SubscriptionRow {
  id: string;
  account: string;
  channel: DeliveryChannel;
  verification: DestinationVerification;
  added_at: string;
  verified_at: string | null;
  removed_at: string | null;
}
