import { expect } from 'chai';
import { STORE_MIGRATION_LOCK } from '../../../src/postgres/migrations/apply.js';
import { holdLock, type HeldLock } from '../../support/held-lock.js';
import { freshDatabase } from '../../support/postgres.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { waitFor, withDeadline } from '../../support/wait.js';

/** The starting service's statement deadline: the lock is held for longer. */
const QUERY_MS = 300;

describe('faults: another instance migrating while this one starts', function () {
  this.timeout(60_000);
  let lock: HeldLock | undefined;
  /** A second holder queued behind the start, if a test made one. */
  let queued: Promise<HeldLock> | undefined;
  let starting: Promise<TestService> | undefined;

  afterEach(async () => {
    // Releasing the lock lets a start still waiting go on; it is stopped.
    await lock?.close();
    await (await queued?.catch(() => undefined))?.close();
    queued = undefined;
    const service = await starting?.catch(() => undefined);
    await service?.stop();
  });

  it('waits for the migration lock longer than its statement deadline, then serves', async () => {
    const databaseUrl = await freshDatabase();
    // As an instance in the middle of a long store migration holds it.
    lock = await holdLock(databaseUrl, STORE_MIGRATION_LOCK);

    let outcome: 'started' | Error | undefined;
    starting = startTestService({ databaseUrl, postgresDeadlines: { queryMs: QUERY_MS } });
    starting.then(
      () => (outcome = 'started'),
      (err: Error) => (outcome = err),
    );
    // Well past the deadline, the start is still waiting for the lock, not failed.
    await waitFor(async () => outcome !== undefined || (await lock!.longestWait()) > 3 * QUERY_MS, {
      timeoutMs: 20_000,
      description: 'the start to wait on the lock past its deadline',
    });
    expect(outcome).to.equal(undefined);

    await lock.release();
    const service = await withDeadline(starting, 30_000, 'the start once the lock is free');
    expect(outcome).to.equal('started');
    const version = await http('GET', `${service.devnet}/api/v1/version`);
    expect(version.status).to.equal(200);
  });

  it('migrates the stores once, at the start: a lock taken right after that pass delays nothing', async () => {
    const databaseUrl = await freshDatabase();
    lock = await holdLock(databaseUrl, STORE_MIGRATION_LOCK);
    starting = startTestService({ databaseUrl, postgresDeadlines: { queryMs: QUERY_MS } });
    await waitFor(async () => (await lock!.waiting()) === 1, {
      timeoutMs: 20_000,
      description: "the start-up pass to wait for the stores' migration lock",
    });
    // Another instance queues for the lock behind the start-up pass, and takes it as soon as
    // that pass is done: anything of this start migrating the stores later would wait on it.
    queued = holdLock(databaseUrl, STORE_MIGRATION_LOCK);
    await waitFor(async () => (await lock!.waiting()) === 2, {
      timeoutMs: 20_000,
      description: 'the other instance to queue behind the start-up pass',
    });
    await lock.release();
    const other = await queued;
    const service = await withDeadline(starting, 30_000, 'the start while the lock is held');
    const version = await http('GET', `${service.devnet}/api/v1/version`);
    expect(version.status).to.equal(200);
    expect(await other.waiting()).to.equal(0);
  });
});
