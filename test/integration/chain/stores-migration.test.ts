/**
 * The chain indexers' stores are created by every instance's start-up pass: instances starting
 * at once on a fresh database must all succeed (PostgreSQL's `IF NOT EXISTS` alone does not make
 * concurrent creation of one schema or table safe).
 */
import { expect } from 'chai';
import pg from 'pg';
import { migrateIndexerStore } from '../../../src/chain/indexer-store.js';
import { migrateTokenHoldersStore } from '../../../src/chain/token-holders-store.js';
import { freshDatabase } from '../../support/postgres.js';

describe('chain stores: migrations', () => {
  it('creates their tables safely when several instances start at once', async () => {
    const url = await freshDatabase();
    // One connection each, as separate instances have.
    const pools = Array.from({ length: 6 }, () => new pg.Pool({ connectionString: url, max: 1 }));
    try {
      await Promise.all(
        pools.flatMap((pool) => [migrateIndexerStore(pool), migrateTokenHoldersStore(pool)]),
      );
      const { rows } = await pools[0]!.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'chain' ORDER BY 1",
      );
      expect(rows.map((r) => r.table_name)).to.deep.equal([
        'indexer_cursors',
        'indexer_facts',
        'indexer_reverted_logs',
        'token_balances',
        'token_cursors',
      ]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });
});
