/**
 * The service's start creates or upgrades what it stores in PostgreSQL outside the read models
 * (the ledger, the chain indexers' stores, the quote store) first, on a connection without the statement
 * deadline: a migration may build an index over a large table, or wait for the lock while
 * another instance migrates, for longer than a statement of the request path may take. The
 * components do not migrate again: the ledger, the projection thread's ledger and the indexers
 * start on what this pass made. The read models
 * migrate the same way on the projection thread (`startProjections`' `migrationDb`).
 */
import pg from 'pg';
import { migrateIndexerStore } from './chain/indexer-store.js';
import { migrateTokenHoldersStore } from './chain/token-holders-store.js';
import { migrateQuoteStore } from './commands/quote-store.js';
import type { Config } from './config.js';
import { migrateLedger } from './ledger/postgres-schema.js';
import type { PostgresDeadlines } from './postgres/connection-options.js';

export async function runStartupMigrations(
  url: string,
  deadlines: PostgresDeadlines,
  ledger: Config['ledger'],
): Promise<void> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    connectionTimeoutMillis: deadlines.connectMs,
  });
  // An idle connection's failure is the next query's error, which fails the start.
  pool.on('error', () => undefined);
  try {
    if (ledger.kind === 'postgres') await migrateLedger(pool);
    await migrateIndexerStore(pool);
    await migrateTokenHoldersStore(pool);
    await migrateQuoteStore(pool);
  } finally {
    await pool.end();
  }
}
