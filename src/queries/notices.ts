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
  return {
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
