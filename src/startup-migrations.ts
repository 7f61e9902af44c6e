/**
 * The service's start migrates what it stores in PostgreSQL outside the read models (the
 * ledger, the chain indexers' stores, the quote store, the id sequences, the delivery outbox:
 * src/postgres/migrations/) first, on a connection without the statement deadline: a step may
 * build an index over a large table, or wait for the lock while another instance migrates, for
 * longer than a statement of the request path may take. The components do not migrate: the
 * ledger, the projection thread and the indexers start on what this pass made. The read models
 * migrate on the projection thread (`startProjections`' `migrationDb`).
 */
import pg from 'pg';
import { migrateStores } from './postgres/migrations/apply.js';
import type { PostgresDeadlines } from './postgres/connection-options.js';

export async function runStartupMigrations(
  url: string,
  deadlines: PostgresDeadlines,
): Promise<void> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: deadlines.connectMs,
  });
  // An idle connection's failure is the next query's error, which fails the start.
  pool.on('error', () => undefined);
  try {
    await migrateStores(pool);
  } finally {
    await pool.end();
  }
}
