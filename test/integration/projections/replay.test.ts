import { expect } from 'chai';
import type { EventType } from '../../../src/domain/events.js';
import { allProjectors } from '../../../projections/index.js';
import type { ProjectionTransaction } from '../../../projections/projector.js';
import { replayInto, swapInto } from '../../../projections/replay.js';
import { startProjections } from '../../../projections/runner.js';
import { createOrderQueries } from '../../../src/queries/orders.js';
import {
  append,
  openTestDatabase,
  orderPlaced,
  projectionDeps,
  tableContents,
  tradeSettled,
  type TestDatabase,
} from './fixtures.js';
import { holdLock } from '../../support/held-lock.js';
import { waitFor } from '../../support/wait.js';

const NOW = 1_800_000_000;

/** What `write` appends. */
const WRITTEN: ReadonlySet<EventType> = new Set(['OrderPlaced', 'TradeSettled']);

describe('replay', () => {
  let t: TestDatabase;

  beforeEach(async () => {
    t = await openTestDatabase();
  });

  afterEach(async () => {
    await t.close();
  });

  /** Places order n and fills it once; returns the last position. */
  async function write(n: number): Promise<string> {
    const placed = orderPlaced(n, { fullAppData: `{"n":${n}}` });
    await append(t.ledger, 'OrderPlaced', placed);
    return append(t.ledger, 'TradeSettled', tradeSettled(placed, { sell: 10n, buy: 1n }, n));
  }

  /** The schema's indexes, its own name written SCHEMA. */
  async function schemaIndexes(schema: string) {
    const { rows } = await t.db.raw<{ rows: { definition: string }[] }>(
      `SELECT replace(indexdef, ?, ' ON SCHEMA.') AS definition FROM pg_indexes
        WHERE schemaname = ? ORDER BY indexname`,
      [` ON ${schema}.`, schema],
    );
    return rows.map((r) => r.definition);
  }

  async function schemaTables(schema: string) {
    const tables: Record<string, string[]> = {};
    for (const p of allProjectors()) {
      for (const table of p.tables) tables[table] = await tableContents(t.db, schema, table);
    }
    return tables;
  }

  it('applies every page to every projector in order, a slow one lagging the fast ones', async () => {
    for (let n = 0; n < 12; n++) await write(n);
    const seen = new Map<string, string[]>();
    const applied = (name: string) => seen.get(name)?.length ?? 0;
    // Pages of 3 events. The slow projector holds its first page until the fast one has applied
    // two: the replay must let the fast one run ahead instead of moving both page by page.
    const recording = (name: string, holdFirstPageUntil?: () => boolean) => ({
      name,
      version: 1,
      tables: [],
      eventTypes: WRITTEN,
      migrate: async () => undefined,
      async handle(_trx: unknown, events: readonly { position: string }[]) {
        if (holdFirstPageUntil && applied(name) === 0) {
          await waitFor(holdFirstPageUntil, { description: 'the fast projector two pages ahead' });
        }
        seen.set(name, [...(seen.get(name) ?? []), ...events.map((e) => e.position)]);
      },
    });
    const progress: number[] = [];
    const result = await replayInto({
      ledger: t.ledger,
      db: t.db,
      projectors: [recording('slow', () => applied('fast') >= 6), recording('fast')],
      schema: 'read_replay',
      batchSize: 3,
      onProgress: (events) => progress.push(events),
    });
    const everything = (await t.ledger.readAll(null, 100)).map((e) => e.position);
    expect(seen.get('slow')).to.deep.equal(everything);
    expect(seen.get('fast')).to.deep.equal(everything);
    expect(result.events).to.equal(24);
    // Progress counts a page once every projector has applied it, in order.
    expect(progress).to.deep.equal([3, 6, 9, 12, 15, 18, 21, 24]);
  });

  it('fails when a projector fails, once the pages in flight have ended, leaving nothing unhandled', async () => {
    for (let n = 0; n < 12; n++) await write(n);
    // `slow`'s third page waits on a lock the test holds; `failing` breaks on its third page once
    // `slow` is inside its own.
    const lock = await holdLock(t.url, 'replay-test.slow-page');
    const pagesOf = { started: 0, ended: 0 };
    let pages = 0;
    let broke = false;
    const failing = {
      name: 'failing',
      version: 1,
      tables: [],
      eventTypes: WRITTEN,
      migrate: async () => undefined,
      async handle() {
        if (++pages < 3) return;
        await waitFor(() => pagesOf.started === 3, { description: 'the slow third page' });
        broke = true;
        throw new Error('projector broke on page 3');
      },
    };
    const slow = {
      ...failing,
      name: 'slow',
      async handle(trx: ProjectionTransaction) {
        if (++pagesOf.started === 3) await trx.raw(lock.waitStatement);
        pagesOf.ended++;
      },
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let settled = false;
      const outcome = replayInto({
        ledger: t.ledger,
        db: t.db,
        projectors: [...allProjectors(), failing, slow],
        schema: 'read_replay',
        batchSize: 3,
      }).then(
        () => 'the replay succeeded',
        (err: Error) => err.message,
      );
      void outcome.finally(() => (settled = true));
      // Once the failure is in and nothing but the slow page is at work, the replay still waits
      // for that page instead of reporting.
      await waitFor(async () => settled || (broke && (await lock.othersAtWork()) === 0), {
        description: 'the failure, with only the slow page left',
      });
      expect(settled).to.equal(false);

      await lock.release();
      expect(await outcome).to.equal('projector broke on page 3');
      // Nothing of the replay runs on (the caller may close the pool now), and the pages queued
      // behind the failure were skipped.
      expect(pagesOf).to.deep.equal({ started: 3, ended: 3 });
      // Give rejections that nobody handled their turn to be reported.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await lock.close();
    }
  });

  it('rebuilds an empty ledger into empty read models', async () => {
    const result = await replayInto({
      ledger: t.ledger,
      db: t.db,
      projectors: allProjectors(),
      schema: 'read_replay',
    });
    expect(result).to.deep.equal({ events: 0, position: null });
    expect(await tableContents(t.db, 'read_replay', 'orders')).to.deep.equal([]);
  });

  it('leaves every rebuilt table analysed, so the first queries after a swap are planned on statistics', async () => {
    for (let n = 0; n < 5; n++) await write(n);
    await replayInto({
      ledger: t.ledger,
      db: t.db,
      projectors: allProjectors(),
      schema: 'read_replay',
    });
    const { rows } = await t.db.raw<{ rows: { table: string; analysed: boolean }[] }>(
      `SELECT relname AS table, last_analyze IS NOT NULL AS analysed FROM pg_stat_user_tables
        WHERE schemaname = 'read_replay' AND relname = ANY(?) ORDER BY relname`,
      [allProjectors().flatMap((p) => p.tables)],
    );
    const tables = allProjectors()
      .flatMap((p) => p.tables)
      .sort();
    expect(rows).to.deep.equal(tables.map((table) => ({ table, analysed: true })));
  });

  it('refuses to swap in a rebuilt schema that lacks a reader index', async () => {
    await write(0);
    await replayInto({
      ledger: t.ledger,
      db: t.db,
      projectors: allProjectors(),
      schema: 'read_replay',
    });
    // As a replay that stopped before building its reader indexes leaves it.
    await t.db.raw('DROP INDEX "read_replay"."notices_by_account"');
    const swap = swapInto({
      ledger: t.ledger,
      db: t.db,
      projectors: allProjectors(),
      from: 'read_replay',
    });
    await swap.then(
      () => expect.fail('the swap succeeded'),
      (err: Error) => expect(err.message).to.equal('read_replay is not a complete replay'),
    );
    const { rows } = await t.db.raw<{ rows: { nspname: string }[] }>(
      "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'read%' ORDER BY 1",
    );
    expect(rows.map((r) => r.nspname)).to.deep.equal(['read_replay']);
  });

  it('swaps the rebuilt schema in under a running service, which carries on from it', async () => {
    const engine = await startProjections({
      ...projectionDeps(t),
      projectors: allProjectors(),
    });
    try {
      let written = '';
      for (let n = 0; n < 30; n++) written = await write(n);
      // The API's reads are prepared statements, planned on the live schema of the moment: here
      // on (most likely) every connection of the pool.
      const { network, owner } = orderPlaced(0);
      const queries = createOrderQueries(t.db);
      const listed = () =>
        Promise.all(Array.from({ length: 8 }, () => queries.byOwner(network, owner, 0, 100, NOW)));
      expect(await engine.waitFor('orders', written, 10_000)).to.equal(true);
      for (const page of await listed()) expect(page).to.have.length(30);

      const progress: number[] = [];
      const rebuilt = await replayInto({
        ledger: t.ledger,
        db: t.db,
        projectors: allProjectors(),
        schema: 'read_replay',
        batchSize: 16,
        onProgress: (events) => progress.push(events),
      });
      expect(rebuilt.events).to.equal(60);
      expect(progress.at(-1)).to.equal(60);
      // The reader indexes, dropped for the pages, are built again: the same as the live ones.
      expect(await schemaIndexes('read_replay')).to.deep.equal(await schemaIndexes('read'));
      expect(await schemaIndexes('read')).to.include.members([
        'CREATE INDEX orders_by_owner ON SCHEMA.orders USING btree (network, owner, creation_date DESC)',
      ]);

      // Appends keep arriving while the swap happens; the swap catches up with them.
      const writing = (async () => {
        let last = '';
        for (let n = 30; n < 60; n++) last = await write(n);
        return last;
      })();
      await swapInto({
        ledger: t.ledger,
        db: t.db,
        projectors: allProjectors(),
        from: 'read_replay',
      });
      const last = await writing;
      for (const { name } of allProjectors()) {
        expect(await engine.waitFor(name, last, 10_000), name).to.equal(true);
      }

      const { rows } = await t.db.raw<{ rows: { nspname: string }[] }>(
        "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'read%' ORDER BY 1",
      );
      expect(rows.map((r) => r.nspname)).to.deep.equal(['read']);
      const sums = await t.db.raw<{ rows: { n: string; sold: string }[] }>(
        `SELECT (SELECT count(*) FROM read.orders)::text AS n,
          (SELECT sum(executed_sell_amount) FROM read.order_chain_state)::text AS sold`,
      );
      expect(sums.rows[0]).to.deep.equal({ n: '60', sold: '600' });
      // The same statements now read the swapped-in schema (the one they were planned on is gone).
      for (const page of await listed()) expect(page).to.have.length(60);

      await replayInto({
        ledger: t.ledger,
        db: t.db,
        projectors: allProjectors(),
        schema: 'check',
      });
      expect(await schemaTables('read')).to.deep.equal(await schemaTables('check'));
    } finally {
      await engine.stop();
    }
  });
});
