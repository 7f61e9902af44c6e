/**
 * The Postgres ledger's tables (DESIGN.md §3), created idempotently on start-up.
 *
 * - `ledger_streams` holds each stream's current revision: appends compare-and-set it, which is
 *   the optimistic-concurrency check, and lock its row, which serialises writers of one stream.
 * - `ledger_events` records the writer's transaction id next to the sequence position. Sequences
 *   hand out positions before commit, so a later commit can expose a lower position; readers
 *   therefore only read rows whose transaction is older than every running one and order by
 *   `(transaction_id, global_position)`, which no future commit can insert below.
 */
import type pg from 'pg';

/** Serialises concurrent start-ups: parallel `CREATE TABLE IF NOT EXISTS` can still collide. */
export const MIGRATION_LOCK = 'batchbook.ledger.migration';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ledger_streams (
  stream_id text PRIMARY KEY,
  revision bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS ledger_events (
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  global_position bigserial NOT NULL,
  stream_id text NOT NULL,
  revision bigint NOT NULL,
  event_id uuid NOT NULL,
  type text NOT NULL,
  version integer NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  recorded_at timestamptz NOT NULL DEFAULT now(),
  -- The all-stream order, and the index readers resume by.
  PRIMARY KEY (transaction_id, global_position),
  -- readStream, and a guard that the compare-and-set above can never be bypassed.
  UNIQUE (stream_id, revision),
  -- Idempotence: an event id is written at most once per stream.
  UNIQUE (stream_id, event_id)
);
`;

export async function migrateLedger(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK]);
    await client.query(SCHEMA);
    await client.query('COMMIT');
    client.release();
  } catch (error) {
    // Discard the connection rather than return one in an unknown transaction state.
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}
