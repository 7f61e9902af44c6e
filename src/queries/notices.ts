/**
 * GET /accounts/{account}/notifications: an account's notices on every network, newest first,
 * from the notices read model (projections/notices/). Addresses are expected lowercase.
 */
import type { Knex } from 'knex';
import type { Address } from '../domain/events.js';
import type { Notice } from '../domain/notices.js';
import { preparedRows } from './prepared.js';
import { table } from './schema.js';

export interface NoticeQueries {
  /** Newest first (timestamp, then id, descending), at most `NOTICES_PER_ACCOUNT`; [] if none. */
  byAccount(account: Address): Promise<Notice[]>;
  /**
   * Whether an auction cut at `nowSeconds` would expire an order of `network`: one the notices
   * read model has open, past its `validTo`, and not held by a winning settlement that may still
   * land (projections/notices/derive-notices.ts). Then the autopilot cuts an auction though it has
   * nothing to solve, so that the ledger's clock passes the expiry.
   */
  expiryDue(network: string, nowSeconds: number): Promise<boolean>;
}

/** Bounds a response: an account's newest notices, however long its history. */
export const NOTICES_PER_ACCOUNT = 1000;

interface NoticeRow {
  id: string;
  account: Address;
  type: Notice['type'];
  message: string;
  timestamp: Date;
  metadata: Notice['metadata'];
}

export function createNoticeQueries(db: Knex, schema = 'read'): NoticeQueries {
  const sql = `SELECT id, account, type, message, timestamp, metadata
    FROM ${table(schema, 'notices')}
    WHERE account = $1
    ORDER BY timestamp DESC, id DESC
    LIMIT ${NOTICES_PER_ACCOUNT}`;
  // The first four conditions spell MAY_EXPIRE (projections/notices/migrations.ts) as its
  // partial index does, for the planner to use that index.
  const dueSql = `SELECT EXISTS (
      SELECT 1 FROM ${table(schema, 'notice_orders')}
      WHERE NOT expired AND NOT filled AND NOT api_cancelled AND chain_invalidations = 0
        AND network = $1 AND valid_to < $2 AND (held_until IS NULL OR held_until < $2)
    ) AS due`;
  return {
    async expiryDue(network, nowSeconds) {
      const [row] = await preparedRows<{ due: boolean }>(db, `expiry-due-${schema}`, dueSql, [
        network,
        nowSeconds,
      ]);
      return row!.due;
    },
    async byAccount(account) {
      const rows = await preparedRows<NoticeRow>(db, `notices-by-account-${schema}`, sql, [
        account,
      ]);
      return rows.map((r) => ({
        id: r.id,
        account: r.account,
        type: r.type,
        message: r.message,
        timestamp: r.timestamp.toISOString(),
        metadata: r.metadata,
      }));
    },
  };
}
