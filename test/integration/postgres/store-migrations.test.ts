/**
 * The store migrations on real databases: a database made before they existed is adopted with
 * every row kept and ends up with a fresh database's schema; each step runs once, in a
 * transaction, under one lock; a record that disagrees with the code stops the start.
 */
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import pg from 'pg';
import { createPostgresLedger } from '../../../src/ledger/postgres.js';
import { migrateStores, checksumOf } from '../../../src/postgres/migrations/apply.js';
import { STORE_MIGRATIONS, type MigrationStep } from '../../../src/postgres/migrations/steps.js';
import { StartupError } from '../../../src/startup-error.js';
import { storeCatalog } from '../../support/catalog.js';
import { freshDatabase } from '../../support/postgres.js';
import { event } from '../ledger/contract.js';

const STORE_TABLES = [
  'public.ledger_streams',
  'public.ledger_events',
  'chain.indexer_cursors',
  'chain.indexer_facts',
  'chain.indexer_reverted_logs',
  'chain.token_cursors',
  'chain.token_balances',
  'quote_store.quotes',
  'delivery.outbox',
  'delivery.budgets',
];

/** A row in every store table, and both sequences moved on, as a service in use leaves them. */
const ROWS = `
INSERT INTO ledger_streams VALUES ('order-1', 0);
INSERT INTO ledger_events (stream_id, revision, event_id, type, version, data)
  VALUES ('order-1', 0, '00000000-0000-4000-8000-000000000001', 'OrderPlaced', 1, '{"uid":"0x01"}');
INSERT INTO chain.indexer_cursors VALUES ('devnet', 12, '0xb12');
INSERT INTO chain.indexer_facts VALUES ('devnet', 12, '0xb12', 3, 'fact-1', 0, '{"type":"TradeSettled"}');
INSERT INTO chain.indexer_reverted_logs VALUES ('devnet', '0xb11', 1, 1);
INSERT INTO chain.token_cursors VALUES ('devnet', '0xt0', 12, '0xb12');
INSERT INTO chain.token_balances VALUES ('devnet', '0xt0', '0xh0', -5);
INSERT INTO quote_store.quotes VALUES ('devnet', 7, '0xs', '0xb', 'sell', '2030-01-01Z', '{"id":7}');
INSERT INTO delivery.outbox (notice_id, subscription_id, account, channel, notice)
  VALUES ('notice-1', 'sub-1', '0xa', '{"type":"webhook"}', '{"id":"notice-1"}');
INSERT INTO delivery.outbox (notice_id, subscription_id, account, channel, verification)
  VALUES ('request-1', 'sub-2', '0xa', '{"type":"email"}', '{"id":"request-1"}');
INSERT INTO delivery.budgets VALUES ('account:0xa', '2030-01-01Z', 3);
SELECT setval('batchbook_auction_ids', 41), setval('batchbook_quote_ids', 7);
`;

/** Every row of every store table and the sequences' positions, as JSON text. */
async function contents(pool: pg.Pool): Promise<Record<string, unknown>> {
  const tables = await Promise.all(
    STORE_TABLES.map(async (table) => {
      const { rows } = await pool.query<{ rows: unknown }>(
        `SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY to_jsonb(t)::text), '[]') AS rows
         FROM ${table} t`,
      );
      return [table, rows[0]!.rows] as const;
    }),
  );
  const { rows: sequences } = await pool.query(
    `SELECT sequencename, last_value FROM pg_sequences
     WHERE sequencename IN ('batchbook_auction_ids', 'batchbook_quote_ids') ORDER BY 1`,
  );
  return { ...Object.fromEntries(tables), sequences };
}

async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

const recorded = (pool: pg.Pool) =>
  pool
    .query<{ name: string; checksum: string }>(
      'SELECT name, checksum FROM schema_migrations ORDER BY name',
    )
    .then((r) => r.rows);

const allSteps = STORE_MIGRATIONS.map((step) => step.name);

/** The DDL of the stores before the migrations, as the start ran it. */
const snapshot = () => readFile(new URL('./stores-before-migrations.sql', import.meta.url), 'utf8');

/** The catalog of a database the migrations made from nothing, all steps applied. */
const freshCatalog = async () =>
  withPool(await freshDatabase(), async (pool) => {
    expect(await migrateStores(pool)).to.deep.equal(allSteps);
    return storeCatalog(pool);
  });

describe('store migrations', () => {
  it('adopts a database made before them: every row kept, the schema equal to a fresh one', async () => {
    const before = await snapshot();
    const fresh = await freshCatalog();
    await withPool(await freshDatabase(), async (pool) => {
      await pool.query(before);
      await pool.query(ROWS);
      const rows = await contents(pool);

      expect(await migrateStores(pool)).to.deep.equal(allSteps);

      expect(await storeCatalog(pool)).to.deep.equal(fresh);
      expect(await contents(pool)).to.deep.equal(rows);
      // The ledger goes on from the stream's revision and the sequence's position.
      const ledger = createPostgresLedger({ pool });
      try {
        await ledger.append('order-1', [event()], 0n);
        expect((await ledger.readStream('order-1')).map((e) => e.revision)).to.deep.equal([0n, 1n]);
      } finally {
        await ledger.close();
      }
      const { rows: next } = await pool.query<{ id: string }>(
        "SELECT nextval('batchbook_auction_ids') AS id",
      );
      expect(next[0]!.id).to.equal('42');
    });
  });

  it('adopts an older database still, whose outbox predates verification requests', async () => {
    const before = await snapshot();
    // Everything up to the outbox's first change: no verification column, no budgets.
    const older = before.slice(0, before.indexOf('ALTER TABLE delivery.outbox'));
    const fresh = await freshCatalog();
    await withPool(await freshDatabase(), async (pool) => {
      await pool.query(older);
      expect(await migrateStores(pool)).to.deep.equal(allSteps);
      expect(await storeCatalog(pool)).to.deep.equal(fresh);
    });
  });

  it('applies each step once and records its name and checksum', async () => {
    await withPool(await freshDatabase(), async (pool) => {
      await migrateStores(pool);
      expect(await migrateStores(pool)).to.deep.equal([]);
      expect(await recorded(pool)).to.deep.equal(
        STORE_MIGRATIONS.map((step) => ({ name: step.name, checksum: checksumOf(step) })),
      );
    });
  });

  it('makes the stores once when several instances start at once on a fresh database', async () => {
    const url = await freshDatabase();
    // One connection each, as separate instances have.
    const pools = Array.from({ length: 6 }, () => new pg.Pool({ connectionString: url, max: 1 }));
    try {
      const applied = await Promise.all(pools.map((pool) => migrateStores(pool)));
      // One pass applied everything; the others waited on the lock and found it done.
      expect(applied.filter((names) => names.length > 0)).to.deep.equal([allSteps]);
      const { relations } = await storeCatalog(pools[0]!);
      // Unlogged ('u'): a quote costs no WAL flush.
      expect(relations).to.deep.include({
        schema: 'quote_store',
        name: 'quotes',
        kind: 'r',
        persistence: 'u',
      });
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('leaves nothing of a failing step, records the steps before it, and tries it again next time', async () => {
    const steps: MigrationStep[] = [
      { name: 'V001__first', sql: 'CREATE TABLE first (id int)' },
      { name: 'V002__broken', sql: 'CREATE TABLE second (id int); SELECT 1 / 0' },
    ];
    await withPool(await freshDatabase(), async (pool) => {
      const failure = await migrateStores(pool, steps).catch((error: Error) => error);
      expect(failure)
        .to.be.instanceOf(Error)
        .with.property('message', 'store migration V002__broken failed');
      expect(await recorded(pool)).to.deep.equal([
        { name: 'V001__first', checksum: checksumOf(steps[0]!) },
      ]);
      const { rows } = await pool.query("SELECT to_regclass('second') AS second");
      expect(rows).to.deep.equal([{ second: null }]);

      const mended = [steps[0]!, { name: 'V002__broken', sql: 'CREATE TABLE second (id int)' }];
      expect(await migrateStores(pool, mended)).to.deep.equal(['V002__broken']);
    });
  });

  it('refuses a database whose landed step has another checksum, or that a newer version migrated', async () => {
    const steps: MigrationStep[] = [{ name: 'V001__first', sql: 'CREATE TABLE first (id int)' }];
    await withPool(await freshDatabase(), async (pool) => {
      await migrateStores(pool, steps);

      const edited = [{ name: 'V001__first', sql: 'CREATE TABLE first (id bigint)' }];
      const editedFailure = await migrateStores(pool, edited).catch((error: Error) => error);
      expect(editedFailure).to.be.instanceOf(StartupError);
      expect((editedFailure as Error).message).to.match(
        /V001__first .* a landed migration was edited/,
      );

      const older: MigrationStep[] = [];
      // The record stays as the step landed.
      expect(await recorded(pool)).to.deep.equal([
        { name: 'V001__first', checksum: checksumOf(steps[0]!) },
      ]);

      const olderFailure = await migrateStores(pool, older).catch((error: Error) => error);
      expect(olderFailure).to.be.instanceOf(StartupError);
      expect((olderFailure as Error).message).to.match(
        /V001__first, which this version does not know/,
      );
    });
  });
});
