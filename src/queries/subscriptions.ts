/**
 * An account's active subscriptions, behind GET /accounts/{account}/subscriptions, and the
 * pending Telegram subscription a code was given to. The `subscriptions` table is the notices
 * projector's (projections/notices/); listings never show a webhook's secret, a push
 * subscription's keys, an e-mail's code or a webhook's challenge.
 */
import type { Knex } from 'knex';
import {
  verificationView,
  type VerificationView,
} from '../subscriptions/destination-verification.js';
import type { Address, DeliveryChannel, DestinationVerification } from '../domain/events.js';
import { publicChannel, type PublicChannel } from '../subscriptions/channels.js';
import { table } from './schema.js';

export interface ListedSubscription {
  id: string;
  account: Address;
  channel: PublicChannel;
  addedAt: string;
  verification: VerificationView;
}

export interface SubscriptionQueries {
  /** The account's (lowercase) active subscriptions, oldest first. */
  active(account: Address): Promise<ListedSubscription[]>;
  /** The active, unverified Telegram subscription `code` was given to, if any. */
  pendingTelegram(code: string): Promise<{ account: Address; id: string } | null>;
}

interface Row {
  id: string;
  account: string;
  channel: DeliveryChannel;
  verification: DestinationVerification;
  added_at: Date;
  verified_at: Date | null;
}

export function createSubscriptionQueries(db: Knex, schema = 'read'): SubscriptionQueries {
  const subscriptions = table(schema, 'subscriptions');
  const active =
    `SELECT id, account, channel, verification, added_at, verified_at FROM ${subscriptions} ` +
    'WHERE account = ? AND removed_at IS NULL ORDER BY added_at, id';
  // Spelled as the partial index `subscriptions_pending_telegram` is.
  const pendingTelegram =
    `SELECT id, account FROM ${subscriptions} WHERE verification->>'code' = ? ` +
    `AND verification->>'method' = 'telegramCode' AND verified_at IS NULL ` +
    'AND removed_at IS NULL';
  return {
    async active(account) {
      const { rows } = await db.raw<{ rows: Row[] }>(active, [account]);
      return rows.map((row) => ({
        id: row.id,
        account: row.account as Address,
        channel: publicChannel(row.channel),
        addedAt: row.added_at.toISOString(),
        verification: verificationView(
          row.verification,
          row.verified_at && row.verified_at.toISOString(),
        ),
      }));
    },
    async pendingTelegram(code) {
      const { rows } = await db.raw<{ rows: { id: string; account: Address }[] }>(pendingTelegram, [
        code,
      ]);
      return rows[0] ?? null;
    },
  };
}
