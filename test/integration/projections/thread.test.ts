import { expect } from 'chai';
import { DEFAULT_POSTGRES_DEADLINES } from '../../../src/postgres/connection-options.js';
import { startProjectionThread } from '../../../src/projection-thread.js';
import type { ProjectionEngine } from '../../../projections/runner.js';
import { createOrderQueries } from '../../../src/queries/orders.js';
import { append, openTestDatabase, orderPlaced, type TestDatabase } from './fixtures.js';

const NOW = 1_800_000_000;

describe('projection thread: the engine on a thread of its own', () => {
  let t: TestDatabase;
  let engine: ProjectionEngine | undefined;
  const errors: unknown[] = [];

  const start = (databaseUrl: string) =>
    startProjectionThread({
      databaseUrl,
      deadlines: DEFAULT_POSTGRES_DEADLINES,
      ledger: { kind: 'postgres' },
      comparePositions: (a, b) => t.ledger.comparePositions(a, b),
      onError: (err) => errors.push(err),
    });

  before(async () => {
    t = await openTestDatabase();
  });

  afterEach(async () => {
    await engine?.stop();
    engine = undefined;
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
});
