/**
 * An account's active subscriptions, behind GET /accounts/{account}/subscriptions. The
 * `subscriptions` table is the notices projector's (projections/notices/); listings never show
 * a webhook's secret or a push subscription's keys.
 */
import type { Knex } from 'knex';
import type { Address, DeliveryChannel } from '../domain/events.js';
import { publicChannel, type PublicChannel } from '../domain/subscription-auth.js';
import { table } from './schema.js';

export interface ListedSubscription {
  id: string;
  account: Address;
  channel: PublicChannel;
  addedAt: string;
}

export interface SubscriptionQueries {
  /** The account's (lowercase) active subscriptions, oldest first. */
  active(account: Address): Promise<ListedSubscription[]>;
}

interface Row {
  id: string;
  account: string;
  channel: DeliveryChannel;
  added_at: Date;
}

export function createSubscriptionQueries(db: Knex, schema = 'read'): SubscriptionQueries {
  const sql =
    `SELECT id, account, channel, added_at FROM ${table(schema, 'subscriptions')} ` +
    'WHERE account = ? AND removed_at IS NULL ORDER BY added_at, id';
  return {
    async active(account) {
      const { rows } = await db.raw<{ rows: Row[] }>(sql, [account]);
      return rows.map((row) => ({
        id: row.id,
        account: row.account as Address,
        channel: publicChannel(row.channel),
        addedAt: row.added_at.toISOString(),
      }));
    },
  };
}
