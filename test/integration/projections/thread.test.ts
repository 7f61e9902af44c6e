import { expect } from 'chai';
import { DEFAULT_POSTGRES_DEADLINES } from '../../../src/postgres/connection-options.js';
import { startProjectionThread } from '../../../src/projection-thread/thread.js';
import type { ProjectionEngine } from '../../../projections/runner.js';
import { createOrderQueries } from '../../../src/queries/orders.js';
import {
  ENDED_ON_PURPOSE,
  startProjectionThreadEnding,
} from '../../support/projection-thread-ending.js';
import { waitFor } from '../../support/wait.js';
import {
  append,
  openTestDatabase,
  orderPlaced,
  tradeSettled,
  type TestDatabase,
} from './fixtures.js';

const NOW = 1_800_000_000;
/** The error a worker thread ends with when V8 stops it at its heap bound. */
const OUT_OF_MEMORY = 'ERR_WORKER_OUT_OF_MEMORY';

describe('projection thread: the engine on a thread of its own', () => {
  let t: TestDatabase;
  let engine: ProjectionEngine | undefined;
  const errors: unknown[] = [];

  const options = (databaseUrl: string) => ({
    databaseUrl,
    deadlines: DEFAULT_POSTGRES_DEADLINES,
    ledger: { kind: 'postgres' as const },
    comparePositions: (a: string, b: string) => t.ledger.comparePositions(a, b),
    onError: (err: unknown) => errors.push(err),
  });
  const start = (databaseUrl: string) => startProjectionThread(options(databaseUrl));

  before(async () => {
    t = await openTestDatabase();
  });

  afterEach(async () => {
    await engine?.stop();
    engine = undefined;
    errors.length = 0;
  });

  after(async () => {
    await t?.close();
  });

  it('projects on the thread and relays its checkpoints to the waits of this one', async () => {
    engine = await start(t.url);
    const placed = orderPlaced(1);
    const position = await append(t.ledger, 'OrderPlaced', placed);

    // This thread's board learns the position only from the thread's messages.
    expect(await engine.waitFor('orders', position, 10_000)).to.equal(true);
    expect(t.ledger.comparePositions(engine.checkpoint('orders')!, position)).to.be.at.least(0);
    const order = await createOrderQueries(t.db).byUid(placed.network, placed.uid, NOW);
    expect(order?.uid).to.equal(placed.uid);
    expect(errors).to.deep.equal([]);
  });

  it("tells the thread what this one's waits want: a projector in no hurry does not wait out its window", async () => {
    // A window longer than the test: only the wait, relayed to the thread, closes the batch.
    engine = await startProjectionThread({ ...options(t.url), batchWindowMs: 600_000 });
    const position = await append(t.ledger, 'OrderPlaced', orderPlaced(30));
    expect(await engine.waitFor('notices', position, 10_000)).to.equal(true);
    expect(errors).to.deep.equal([]);
  });

  it('answers each question about its heap, and none once stopped', async () => {
    const thread = await start(t.url);
    engine = thread;
    const answers = await Promise.all([thread.heapUsed(), thread.heapUsed(), thread.heapUsed()]);
    for (const heapUsed of answers) {
      // Its own isolate's heap: megabytes of code and engine state, not the process's gigabytes.
      expect(heapUsed).to.be.a('number').within(1e6, 1e9);
    }
    await thread.stop();
    expect(await thread.heapUsed()).to.equal(null);
  });

  it('stops after its batches: later waits answer false at once', async () => {
    engine = await start(t.url);
    await engine.stop();
    const position = await append(t.ledger, 'OrderPlaced', orderPlaced(2));
    expect(await engine.waitFor('orders', position, 10_000)).to.equal(false);
  });

  it('fails its start with the thread’s own error when PostgreSQL cannot be reached', async () => {
    // A port nothing listens on: the thread's first connection is refused.
    const unreachable = 'postgres://postgres:x@127.0.0.1:1/none';
    const failure = await start(unreachable).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error & { code?: string }).code).to.equal('ECONNREFUSED');
  });

  it('starts again after it ends unasked and resumes where it stopped, each event applied once', async () => {
    const thread = await startProjectionThreadEnding(options(t.url));
    engine = thread;
    expect(thread.running()).to.equal(true);
    const ended = `the projection thread ended (exit code ${ENDED_ON_PURPOSE})`;
    const first = orderPlaced(3);
    await append(t.ledger, 'OrderPlaced', first);
    // Its first checkpoint report after this append is its last.
    await waitFor(() => errors.some((e) => (e as Error).message === ended), {
      timeoutMs: 10_000,
      description: 'the thread to end',
    });

    // Not running until the next starts, after a second's backoff (readiness says so).
    expect(thread.running()).to.equal(false);
    // Appended while no thread runs.
    await append(t.ledger, 'TradeSettled', tradeSettled(first, { sell: 10n, buy: 20n }));
    const later = [4, 5, 6].map((n) => orderPlaced(n));
    let last = '';
    for (const placed of later) last = await append(t.ledger, 'OrderPlaced', placed);

    for (const projector of ['orders', 'trades', 'notices']) {
      expect(await engine.waitFor(projector, last, 15_000), projector).to.equal(true);
    }
    const queries = createOrderQueries(t.db);
    const filled = await queries.byUid(first.network, first.uid, NOW);
    expect(filled?.executedSellAmount).to.equal('10');
    expect(filled?.executedBuyAmount).to.equal('20');
    for (const placed of later) {
      expect((await queries.byUid(placed.network, placed.uid, NOW))?.uid).to.equal(placed.uid);
    }
    const { rows } = await t.db.raw<{ rows: { n: number }[] }>(
      'SELECT count(*)::int AS n FROM read.trades WHERE order_uid = ?',
      [first.uid],
    );
    expect(rows[0]!.n).to.equal(1);
    expect(errors.map((e) => (e as Error).message)).to.deep.equal([ended]);
    expect(thread.running()).to.equal(true);
    await thread.stop();
    expect(thread.running()).to.equal(false);
  });

  it('backs off further each time a thread ends soon after it started: 1 s, then 2 s', async () => {
    engine = await startProjectionThreadEnding(options(t.url), { times: 3 });
    const endedAt: number[] = [];
    const onEnd = (err: unknown) => {
      if ((err as Error).message.startsWith('the projection thread ended'))
        endedAt.push(Date.now());
    };
    // Each thread ends at its first checkpoint report: an event for each to take in.
    for (let ends = 1; ends <= 3; ends++) {
      await append(t.ledger, 'OrderPlaced', orderPlaced(20 + ends));
      await waitFor(
        () => {
          for (const err of errors.splice(0)) onEnd(err);
          return endedAt.length >= ends;
        },
        { timeoutMs: 20_000, description: `the thread to end ${ends} times` },
      );
    }
    // Between two ends: the backoff, then the next thread's start and its first batch.
    const [first, second, third] = endedAt as [number, number, number];
    expect(second - first, 'after the first end').to.be.at.least(1_000);
    expect(
      third - second,
      'after the second: twice as long, not reset by its start',
    ).to.be.at.least(2_000);
  });

  it('ends alone at its heap bound, out of memory, and starts again from its checkpoints', async () => {
    const bounded = { ...options(t.url), heapLimitMb: 96 };
    engine = await startProjectionThreadEnding(bounded, { endBy: 'out-of-memory' });
    const first = orderPlaced(7);
    await append(t.ledger, 'OrderPlaced', first);
    // What the thread reports as it ends: V8 stopped it at its bound, not a bug or an exit.
    await waitFor(() => errors.some((e) => (e as { code?: string }).code === OUT_OF_MEMORY), {
      timeoutMs: 20_000,
      description: 'the thread to run out of memory',
    });

    const later = orderPlaced(8);
    const last = await append(t.ledger, 'OrderPlaced', later);
    expect(await engine.waitFor('orders', last, 15_000)).to.equal(true);
    const queries = createOrderQueries(t.db);
    for (const placed of [first, later]) {
      expect((await queries.byUid(placed.network, placed.uid, NOW))?.uid).to.equal(placed.uid);
    }
    expect(errors.filter((e) => (e as { code?: string }).code !== OUT_OF_MEMORY)).to.have.length(1);
  });
});
