import { expect } from 'chai';
import { requestLeadership } from '../../../src/postgres/leadership.js';
import { freshDatabase } from '../../support/postgres.js';

/** What `promise` settled to, or 'pending' if it had not within `ms`. */
const settledWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([
    promise.then(
      () => 'resolved',
      () => 'rejected',
    ),
    new Promise((resolve) => setTimeout(() => resolve('pending'), ms).unref()),
  ]);

describe('leader locks', () => {
  let url: string;

  before(async () => {
    url = await freshDatabase();
  });

  it('settles a request released while its session is still connecting', async () => {
    // pg never settles a connect() that end() cut short; a stopping worker waits on `acquired`.
    const leadership = requestLeadership({ connectionString: url }, ['test', 'early'], () => {
      throw new Error('a lock never held cannot be lost');
    });
    const settled = settledWithin(leadership.acquired, 5_000);
    await leadership.release();
    expect(await settled).to.equal('rejected');
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
    expect(await settledWithin(second.acquired, 300)).to.equal('pending');
    await first.release();
    await second.acquired;
    expect(second.held).to.equal(true);
    await second.release();
  });
});
