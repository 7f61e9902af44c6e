import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { ordersProjector } from '../../../projections/orders/projector.js';
import type { Projector } from '../../../projections/projector.js';
import { startProjections, type ProjectionEngine } from '../../../projections/runner.js';
import type { TradeSettledV1 } from '../../../src/domain/events.js';
import type { Ledger, RecordedEvent, Subscription } from '../../../src/ledger/port.js';
import { knexOptions } from '../../../src/postgres/connection-options.js';
import { holdLock } from '../../support/held-lock.js';
import { waitFor, withDeadline } from '../../support/wait.js';
import {
  address,
  append,
  openTestDatabase,
  orderPlaced,
  projectionDeps,
  tradeSettled,
  type TestDatabase,
} from './fixtures.js';

/** Appends `orders` orders, each followed by `fills` trades, from several writers at once. */
async function writeOrders(t: TestDatabase, first: number, orders: number, fills = 2) {
  const positions: string[] = [];
  const writer = async (offset: number) => {
    for (let n = first + offset; n < first + orders; n += 8) {
      const placed = orderPlaced(n, { owner: address(n % 5) });
      positions.push(await append(t.ledger, 'OrderPlaced', placed));
      for (let f = 0; f < fills; f++) {
        const trade = tradeSettled(placed, { sell: BigInt(n), buy: 1n }, n, f);
        positions.push(await append(t.ledger, 'TradeSettled', trade));
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, i) => writer(i)));
  return positions.sort((a, b) => t.ledger.comparePositions(a, b)).at(-1)!;
}

async function storedCheckpoint(db: Knex, projector: string): Promise<string | null> {
  const { rows } = await db.raw<{ rows: { position: string | null }[] }>(
    'SELECT position FROM read.projection_checkpoints WHERE projector = ?',
    [projector],
  );
  return rows[0]!.position;
}

/**
 * The orders table holds exactly the effect of the events up to its checkpoint: every order
 * placed by then (no gap) and every fill counted once (no duplicate).
 */
async function expectExactlyUpToCheckpoint(t: TestDatabase): Promise<void> {
  const checkpoint = await storedCheckpoint(t.db, 'orders');
  let placed = 0;
  let sold = 0n;
  for (let after: string | null = null; ;) {
    const page = await t.ledger.readAll(after, 1000);
    const upTo = page.filter(
      (e) => checkpoint && t.ledger.comparePositions(e.position, checkpoint) <= 0,
    );
    for (const e of upTo) {
      if (e.type === 'OrderPlaced') placed += 1;
      if (e.type === 'TradeSettled') sold += BigInt((e.data as TradeSettledV1).sellAmount);
    }
    if (upTo.length < page.length || page.length === 0) break;
    after = page.at(-1)!.position;
  }
  const { rows } = await t.db.raw<{ rows: { n: string; sold: string }[] }>(
    `SELECT (SELECT count(*) FROM read.orders)::text AS n,
      COALESCE((SELECT sum(executed_sell_amount) FROM read.order_chain_state), 0)::text AS sold`,
  );
  expect({ placed: Number(rows[0]!.n), sold: BigInt(rows[0]!.sold) }).to.deep.equal({
    placed,
    sold,
  });
}

/** Wraps a projector so its first `failures` batches fail after writing, as a crash would. */
function failing(inner: Projector, failures: number, kill: boolean): Projector {
  let left = failures;
  return {
    ...inner,
    async handle(trx, events, schema) {
      await inner.handle(trx, events, schema);
      if (left-- <= 0) return;
      // Terminating our own backend mid-transaction is what a crash looks like to Postgres.
      if (kill) await trx.raw('SELECT pg_terminate_backend(pg_backend_pid())');
      throw new Error('projector failed mid-batch');
    },
  };
}

/** A projector of trades that keeps nothing but the positions of each batch it was handed. */
function fillsProjector(batches: string[][], options: { gathers?: boolean } = {}): Projector {
  return {
    name: 'fills',
    version: 1,
    tables: [],
    eventTypes: new Set(['TradeSettled']),
    ...options,
    migrate: async () => undefined,
    async handle(_trx, events) {
      batches.push(events.map((e) => e.position));
    },
  };
}

/** Appends `count` trades of one order, one after the other; their positions. */
async function appendFills(t: TestDatabase, n: number, count: number): Promise<string[]> {
  const placed = orderPlaced(n);
  const positions: string[] = [];
  for (let f = 0; f < count; f++) {
    const trade = tradeSettled(placed, { sell: 1n, buy: 1n }, n, f);
    positions.push(await append(t.ledger, 'TradeSettled', trade));
  }
  return positions;
}

/** `ledger`, whose subscriptions tell `handed` of each event as they hand it to their reader. */
function watchedLedger(ledger: Ledger, handed: (event: RecordedEvent) => void): Ledger {
  return new Proxy(ledger, {
    get(target, key) {
      if (key !== 'subscribe') {
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (...args: Parameters<Ledger['subscribe']>): Subscription => {
        const subscription = target.subscribe(...args);
        return {
          close: () => subscription.close(),
          async *[Symbol.asyncIterator]() {
            for await (const event of subscription) {
              handed(event);
              yield event;
            }
          },
        };
      };
    },
  });
}

describe('projection runner', () => {
  let t: TestDatabase;
  const engines: ProjectionEngine[] = [];
  const start = async (
    projectors: Projector[],
    options: { batchSize?: number; batchWindowMs?: number; ledger?: Ledger } = {},
  ) => {
    const errors: unknown[] = [];
    const engine = await startProjections({
      ...projectionDeps(t),
      projectors,
      onError: (err) => errors.push(err),
      ...options,
    });
    engines.push(engine);
    return { engine, errors };
  };

  beforeEach(async () => {
    t = await openTestDatabase();
  });

  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.stop()));
    await t.close();
  });

  it('commits rows and checkpoint together: a batch that dies mid-way leaves no trace', async () => {
    const last = await writeOrders(t, 0, 120);
    const { engine, errors } = await start([failing(ordersProjector(), 2, true)], {
      batchSize: 50,
    });
    expect(await engine.waitFor('orders', last, 20_000)).to.equal(true);
    expect(errors).to.have.length.greaterThanOrEqual(2);
    await expectExactlyUpToCheckpoint(t);
    expect(await storedCheckpoint(t.db, 'orders')).to.equal(last);
  });

  it('rolls a failing batch back and retries it, never skipping it', async () => {
    const last = await writeOrders(t, 0, 40);
    const { engine, errors } = await start([failing(ordersProjector(), 3, false)]);
    expect(await engine.waitFor('orders', last, 20_000)).to.equal(true);
    expect(errors.map(String)).to.include('Error: projector failed mid-batch');
    await expectExactlyUpToCheckpoint(t);
    // The batch transaction is the runner's own: none may be left open on a pooled connection.
    const { rows } = await t.db.raw<{ rows: unknown[] }>(
      "SELECT 1 FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'",
    );
    expect(rows).to.have.length(0);
  });

  it('resumes after a stop mid-stream with no duplicate and no gap', async () => {
    const last = await writeOrders(t, 0, 300);
    const first = await start([ordersProjector()], { batchSize: 7 });
    await waitFor(() => first.engine.checkpoint('orders') !== null, {
      description: 'first batches',
    });
    await first.engine.stop();
    expect(t.ledger.comparePositions((await storedCheckpoint(t.db, 'orders'))!, last)).to.be.below(
      0,
    );
    await expectExactlyUpToCheckpoint(t);

    const second = await start([ordersProjector()], { batchSize: 7 });
    expect(await second.engine.waitFor('orders', last, 20_000)).to.equal(true);
    await expectExactlyUpToCheckpoint(t);
    expect(await storedCheckpoint(t.db, 'orders')).to.equal(last);
  });

  it('opens no batch for events a projector does not handle, and stores its checkpoint once quiet', async () => {
    const batches: string[][] = [];
    const fills = fillsProjector(batches);
    const placedOnly = await writeOrders(t, 0, 40, 0);
    const first = await start([fills]);
    expect(await first.engine.waitFor('fills', placedOnly, 20_000)).to.equal(true);
    await waitFor(async () => (await storedCheckpoint(t.db, 'fills')) === placedOnly, {
      description: 'the checkpoint stored after the ledger went quiet',
    });
    expect(batches).to.deep.equal([]);

    // A new instance resumes from the stored position; only the fills reach the projector.
    await first.engine.stop();
    const second = await start([fills]);
    const fillPositions = await appendFills(t, 1000, 3);
    expect(await second.engine.waitFor('fills', fillPositions.at(-1)!, 20_000)).to.equal(true);
    expect(batches.flat()).to.deep.equal(fillPositions);
    expect(second.errors).to.deep.equal([]);
  });

  it('gathers what a projector in no hurry is handed into one batch, until a wait wants it', async () => {
    const batches: string[][] = [];
    const handed = new Set<string>();
    // A window longer than the test: only the wait can close the batch in time.
    const { engine, errors } = await start([fillsProjector(batches, { gathers: true })], {
      batchWindowMs: 600_000,
      ledger: watchedLedger(t.ledger, (e) => handed.add(e.position)),
    });
    // Each trade reaches the projector's worker before the next is appended: without the
    // window, each would be a batch of its own.
    const positions: string[] = [];
    for (let n = 1; n <= 3; n++) {
      const [position] = await appendFills(t, n, 1);
      await waitFor(() => handed.has(position!), { description: `trade ${n} handed over` });
      positions.push(position!);
    }
    expect(await engine.waitFor('fills', positions.at(-1)!, 10_000)).to.equal(true);
    expect(batches).to.deep.equal([positions]);
    expect(await storedCheckpoint(t.db, 'fills')).to.equal(positions.at(-1));
    expect(errors).to.deep.equal([]);
  });

  it('applies a gathering batch at the end of its window when no wait wants it, losing no later event', async () => {
    const batches: string[][] = [];
    const { errors } = await start([fillsProjector(batches, { gathers: true })], {
      batchWindowMs: 20,
    });
    const [first] = await appendFills(t, 2, 1);
    await waitFor(async () => (await storedCheckpoint(t.db, 'fills')) === first, {
      description: 'the batch applied with no wait for it',
    });
    expect(batches).to.deep.equal([[first]]);
    // The window closed on a wait for the next event, which the next batch takes over.
    const [second] = await appendFills(t, 3, 1);
    await waitFor(async () => (await storedCheckpoint(t.db, 'fills')) === second, {
      description: 'the next batch applied',
    });
    expect(batches).to.deep.equal([[first], [second]]);
    expect(errors).to.deep.equal([]);
  });

  it('runs one instance per projector; a waiting one takes over when it stops', async () => {
    const a = await start([ordersProjector()]);
    const p1 = await append(t.ledger, 'OrderPlaced', orderPlaced(1));
    expect(await a.engine.waitFor('orders', p1, 5000)).to.equal(true);

    const b = await start([ordersProjector()]);
    const holders = async () => {
      const { rows } = await t.db.raw<{ rows: { granted: boolean }[] }>(
        `SELECT l.granted FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid
         WHERE l.locktype = 'advisory' AND s.application_name = 'batchbook-leader:read.orders'`,
      );
      return rows.map((r) => r.granted).sort();
    };
    await waitFor(async () => (await holders()).length === 2, { description: 'b waiting' });
    expect(await holders()).to.deep.equal([false, true]);

    // A standby that stops gives up its wait at once.
    const c = await start([ordersProjector()]);
    await waitFor(async () => (await holders()).length === 3, { description: 'c waiting' });
    await withDeadline(c.engine.stop(), 5000, 'stopping a standby');
    await waitFor(async () => (await holders()).length === 2, { description: 'c gone' });

    // The standby learns the leader's progress through notices: read-your-writes on both.
    const p2 = await append(t.ledger, 'OrderPlaced', orderPlaced(2));
    expect(await a.engine.waitFor('orders', p2, 5000)).to.equal(true);
    expect(await b.engine.waitFor('orders', p2, 5000)).to.equal(true);

    await a.engine.stop();
    const last = await writeOrders(t, 10, 30);
    expect(await b.engine.waitFor('orders', last, 10_000)).to.equal(true);
    expect(await holders()).to.deep.equal([true]);
    await expectExactlyUpToCheckpoint(t);
  });

  it('waitFor answers true once projected and false at the deadline', async () => {
    const { engine } = await start([ordersProjector()]);
    const position = await append(t.ledger, 'OrderPlaced', orderPlaced(1));
    expect(await engine.waitFor('orders', position, 5000)).to.equal(true);
    // Already reached: answered at once, even with no time left.
    expect(await engine.waitFor('orders', position, 0)).to.equal(true);
    const began = Date.now();
    expect(await engine.waitFor('orders', '999999999999:999999999999', 150)).to.equal(false);
    expect(Date.now() - began).to.be.at.least(140);
  });

  it('rebuilds a read model whose projector version was bumped', async () => {
    const last = await writeOrders(t, 0, 20, 1);
    const v1 = await start([ordersProjector()]);
    expect(await v1.engine.waitFor('orders', last, 5000)).to.equal(true);
    await v1.engine.stop();
    await t.db.raw('UPDATE read.orders SET kind = ?', ['tampered']);

    const current = ordersProjector().version;
    const v2 = await start([{ ...ordersProjector(), version: current + 1 }]);
    expect(await v2.engine.waitFor('orders', last, 5000)).to.equal(true);
    const { rows } = await t.db.raw<{ rows: { kind: string }[] }>(
      'SELECT DISTINCT kind FROM read.orders',
    );
    expect(rows).to.deep.equal([{ kind: 'sell' }]);
    await expectExactlyUpToCheckpoint(t);
    await v2.engine.stop();

    // Code older than the stored read model refuses to touch it.
    let refused: unknown;
    await start([ordersProjector()]).catch((err: unknown) => (refused = err));
    expect(String(refused)).to.contain(
      `version ${current + 1}, this instance runs version ${current}`,
    );
  });

  it('migrates on its migration connections, free of the statement deadline the batches keep', async () => {
    const QUERY_MS = 300;
    // A migration that lasts until the test says (as a large index, or another instance's
    // migration lock, would): it waits on a lock the test holds.
    const lock = await holdLock(t.url, 'runner-test.slow-migration');
    const slowMigration: Projector = {
      name: 'slow-migration',
      version: 1,
      tables: [],
      eventTypes: new Set(),
      migrate: async (db) => void (await db.raw(lock.waitStatement)),
      handle: async () => undefined,
    };
    const deadlined = knex({
      client: 'pg',
      ...knexOptions(t.url, { connectMs: 5_000, queryMs: QUERY_MS }, { min: 0, max: 4 }),
      // Knex warns of the connection closed for the timeout, which is the point here.
      log: { warn: () => undefined },
    });
    try {
      const deps = { ...projectionDeps(t), db: deadlined, projectors: [slowMigration] };
      const failed = await startProjections(deps).then(
        () => null,
        (err: unknown) => err,
      );
      expect(String(failed)).to.match(/Query read timeout$/);

      const starting = startProjections({ ...deps, migrationDb: t.db });
      await waitFor(async () => (await lock.longestWait()) > 3 * QUERY_MS, {
        description: 'the migration to wait past the deadline',
      });
      await lock.release();
      const engine = await withDeadline(starting, 10_000, 'the start once the migration ends');
      await engine.stop();
    } finally {
      await lock.close();
      await deadlined.destroy();
    }
  });
});
