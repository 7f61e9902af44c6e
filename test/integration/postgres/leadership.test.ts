import { expect } from 'chai';
import pg from 'pg';
import { requestLeadership } from '../../../src/postgres/leadership.js';
import { freshDatabase } from '../../support/postgres.js';
import { waitFor, withDeadline } from '../../support/wait.js';

describe('leader locks', () => {
  let url: string;
  let observer: pg.Client;

  /** Sessions of this database waiting for an advisory lock another session holds. */
  const waitingForLocks = async () => {
    const { rows } = await observer.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_locks
       WHERE locktype = 'advisory' AND NOT granted
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    return rows[0]!.waiting;
  };

  before(async () => {
    url = await freshDatabase();
    observer = new pg.Client({ connectionString: url });
    await observer.connect();
  });

  after(async () => {
    await observer?.end();
  });

  it('settles a request released while its session is still connecting', async () => {
    // pg never settles a connect() that end() cut short; a stopping worker waits on `acquired`.
    const leadership = requestLeadership({ connectionString: url }, ['test', 'early'], () => {
      throw new Error('a lock never held cannot be lost');
    });
    const outcome = leadership.acquired.then(
      () => 'acquired',
      () => 'rejected',
    );
    await leadership.release();
    expect(await withDeadline(outcome, 5_000, 'the released request')).to.equal('rejected');
    expect(leadership.held).to.equal(false);
  });

  it('hands the lock to the next request once its holder releases it', async () => {
    const first = requestLeadership(
      { connectionString: url },
      ['test', 'handover'],
      () => undefined,
    );
    await first.acquired;
    const second = requestLeadership(
      { connectionString: url },
      ['test', 'handover'],
      () => undefined,
    );
    await waitFor(async () => (await waitingForLocks()) === 1, {
      description: 'the second request to queue for the lock',
    });
    expect(second.held).to.equal(false);
    await first.release();
    await withDeadline(second.acquired, 5_000, 'the handover');
    expect(second.held).to.equal(true);
    await second.release();
  });
});
