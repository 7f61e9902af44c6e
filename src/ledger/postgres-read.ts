/**
 * Reading the Postgres ledger's all-stream (DESIGN.md §3).
 *
 * Only rows whose writer transaction is older than the oldest transaction still running
 * (`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`) are read: every such transaction
 * has ended, and any transaction that commits later has a larger id, so no row can ever appear
 * before a position a reader has already passed. Reading by `global_position > last` alone loses
 * the rows of a transaction that took its positions early and committed late.
 */
import type pg from 'pg';
import { EVENT_COLUMNS, type EventRow, type PostgresPosition } from './postgres-rows.js';

export interface PageRow extends EventRow {
  /** False for rows a stream-prefix filter leaves out; they still advance the reader. */
  selected: boolean;
}

const PAGE = `
SELECT ${EVENT_COLUMNS}, selected FROM (
  SELECT transaction_id, global_position, stream_id, revision, event_id, type, version,
    recorded_at, ($4::text[] IS NULL OR stream_id LIKE ANY($4::text[])) AS selected,
    -- Left-out rows are returned only to move the cursor: do not ship their payloads.
    CASE WHEN $4::text[] IS NULL OR stream_id LIKE ANY($4::text[]) THEN data END AS data,
    CASE WHEN $4::text[] IS NULL OR stream_id LIKE ANY($4::text[]) THEN metadata END AS metadata
  FROM ledger_events
  WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
    AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY transaction_id, global_position
  LIMIT $3
) page
-- Qualified: the bare names would sort by the text columns of the output.
ORDER BY page.transaction_id, page.global_position`;

/**
 * Up to `limit` visible rows strictly after `after`, in all-stream order. With `streamPrefixes`,
 * rows of other streams come back with `selected: false` and no payload.
 */
export async function readPage(
  db: pg.Pool | pg.PoolClient,
  after: PostgresPosition,
  limit: number,
  streamPrefixes?: readonly string[],
): Promise<PageRow[]> {
  const patterns = streamPrefixes?.map((prefix) => `${prefix.replace(/[\\%_]/g, '\\$&')}%`);
  // Named: PostgreSQL parses and plans it once per connection, not on every page.
  const { rows } = await db.query<PageRow>({
    name: 'ledger-read-page',
    text: PAGE,
    values: [
      after.transactionId.toString(),
      after.globalPosition.toString(),
      limit,
      patterns ?? null,
    ],
  });
  return rows;
}

const BACKLOG = `
SELECT count(*)::int AS events, min(recorded_at) AS oldest FROM (
  SELECT recorded_at FROM ledger_events
  WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
    AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY transaction_id, global_position
  LIMIT $3
) ahead`;

/** The visible rows after `after`, up to `cap` of them, and the oldest one's time. */
export async function readBacklog(
  db: pg.Pool,
  after: PostgresPosition,
  cap: number,
): Promise<{ events: number; oldest: Date | null }> {
  const { rows } = await db.query<{ events: number; oldest: Date | null }>({
    name: 'ledger-backlog',
    text: BACKLOG,
    values: [after.transactionId.toString(), after.globalPosition.toString(), cap],
  });
  return rows[0]!;
}
