/**
 * One autopilot per network across instances: two loops under the autopilot's leader key (as two
 * services on one database run them) never run a step at the same time, only one of them steps
 * while both live, and the other takes over when it stops. Another network's loop is not held up.
 */
import { expect } from 'chai';
import { autopilotLeaderKey } from '../../../src/auction/autopilot.js';
import { startLeaderLoop, type LeaderLoop } from '../../../src/chain/leader-loop.js';
import { createLogger } from '../../../src/logger.js';
import { leadershipOn } from '../../../src/postgres/leadership.js';
import { freshDatabase } from '../../support/postgres.js';
import { waitFor } from '../../support/wait.js';

describe('autopilot leadership', function () {
  this.timeout(30_000);

  it('runs one network’s auctions on one instance at a time, and hands over on a stop', async () => {
    const requestLeadership = leadershipOn({ connectionString: await freshDatabase() });
    const steps: string[] = [];
    let running = 0;
    let overlapped = false;
    const loop = (instance: string, network = 'devnet'): LeaderLoop =>
      startLeaderLoop({
        requestLeadership,
        key: autopilotLeaderKey(network),
        pollIntervalMs: 5,
        logger: createLogger('silent'),
        async step() {
          running += network === 'devnet' ? 1 : 0;
          if (running > 1) overlapped = true;
          steps.push(`${network}/${instance}`);
          // A step's work takes time: the other instance would be inside it too if it could.
          await new Promise((resolve) => setImmediate(resolve));
          running -= network === 'devnet' ? 1 : 0;
        },
      });
    const first = loop('a');
    await waitFor(() => steps.includes('devnet/a'), { description: 'a leading' });
    const second = loop('b');
    const mainnet = loop('c', 'mainnet');
    await waitFor(() => steps.filter((s) => s === 'devnet/a').length >= 50, {
      description: 'fifty steps of a',
    });
    await waitFor(() => steps.includes('mainnet/c'), { description: 'another network runs' });
    expect(steps).to.not.include('devnet/b');

    await first.stop();
    await waitFor(() => steps.includes('devnet/b'), { description: 'b taking over' });
    await Promise.all([second.stop(), mainnet.stop()]);
    expect(overlapped).to.equal(false);
  });
});
