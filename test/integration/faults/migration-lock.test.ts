import { expect } from 'chai';
import pg from 'pg';
import { MIGRATION_LOCK } from '../../../src/ledger/postgres-schema.js';
import { freshDatabase } from '../../support/postgres.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { waitFor, withDeadline } from '../../support/wait.js';

/** The starting service's statement deadline: the lock is held for longer. */
const QUERY_MS = 300;

describe('faults: another instance migrating while this one starts', function () {
  this.timeout(60_000);
  let holder: pg.Client | undefined;
  let observer: pg.Client | undefined;
  let starting: Promise<TestService> | undefined;

  afterEach(async () => {
    // Ending the holder's session frees the lock: a start still waiting goes on, and is stopped.
    await holder?.end();
    await observer?.end();
    const service = await starting?.catch(() => undefined);
    await service?.stop();
  });

  it('waits for the migration lock longer than its statement deadline, then serves', async () => {
    const databaseUrl = await freshDatabase();
    // As an instance in the middle of a long ledger migration holds it.
    holder = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK]);
    // Outside any transaction, so that each look at the sessions is a fresh one.
    observer = new pg.Client({ connectionString: databaseUrl });
    await observer.connect();

    let outcome: 'started' | Error | undefined;
    starting = startTestService({ databaseUrl, postgresDeadlines: { queryMs: QUERY_MS } });
    starting.then(
      () => (outcome = 'started'),
      (err: Error) => (outcome = err),
    );
    // Well past the deadline, the start is still waiting for the lock, not failed.
    const waitingSince = async () => {
      const { rows } = await observer!.query<{ ms: number | null }>(
        `SELECT max(extract(epoch FROM clock_timestamp() - query_start) * 1000)::float8 AS ms
         FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return rows[0]!.ms ?? 0;
    };
    await waitFor(async () => outcome !== undefined || (await waitingSince()) > 3 * QUERY_MS, {
      timeoutMs: 20_000,
      description: 'the start to wait on the lock past its deadline',
    });
    expect(outcome).to.equal(undefined);

    await holder.query('COMMIT');
    const service = await withDeadline(starting, 30_000, 'the start once the lock is free');
    expect(outcome).to.equal('started');
    const version = await http('GET', `${service.devnet}/api/v1/version`);
    expect(version.status).to.equal(200);
  });
});
