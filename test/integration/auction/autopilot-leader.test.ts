/**
 * One autopilot per network across instances: two loops under the autopilot's leader key (as two
 * services on one database run them) never run a step at the same time, only one of them steps
 * while both live, and the other takes over when it stops. Another network's loop is not held up.
 * An autopilot that loses the lock while it solves does not record that auction.
 */
import { expect } from 'chai';
import pg from 'pg';
import { autopilotLeaderKey } from '../../../src/auction/autopilot.js';
import { startLeaderLoop, type LeaderLoop } from '../../../src/chain/leader-loop.js';
import type { Address } from '../../../src/domain/events.js';
import { createLogger } from '../../../src/logger.js';
import { leadershipOn } from '../../../src/postgres/leadership.js';
import { startTestChain } from '../../support/chain.js';
import { freshDatabase } from '../../support/postgres.js';
import { startTestService } from '../../support/service.js';
import { signCowPair } from '../../support/settle.js';
import { newWallet } from '../../support/signing.js';
import { startSolverServer } from '../../support/solver-server.js';
import { placeTrades } from '../../support/place.js';
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

  it('records no auction whose solving outlived the lock, and records the next one', async () => {
    // A chain of its own: the order placed here must not reach other suites' auctions.
    const chain = await startTestChain();
    const databaseUrl = await freshDatabase();
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    const [namespace, network] = autopilotLeaderKey('devnet');
    // The session holding the devnet autopilot's lock (two-key advisory locks: objsubid 2).
    const autopilotLock = {
      text: `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
               AND classid = hashtext($1)::oid AND objid = hashtext($2)::oid`,
      values: [namespace, network],
    };
    let lostDuring: number | null = null;
    const solver = await startSolverServer({
      // The first round loses the lock while the solver works on it: its session is ended, as a
      // dropped connection would end it, and the answer waits until the lock is free.
      respond: async (request) => {
        if (lostDuring === null) {
          lostDuring = Number(request.id);
          const { rows } = await admin.query<{ pid: number }>(autopilotLock);
          await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [
            rows.map((row) => row.pid),
          ]);
          await waitFor(async () => (await admin.query(autopilotLock)).rowCount === 0, {
            description: 'the lock free',
          });
        }
        return { solutions: [] };
      },
    });
    let service: Awaited<ReturnType<typeof startTestService>> | undefined;
    try {
      service = await startTestService({
        databaseUrl,
        env: {
          DEVNET_RPC_URL: chain.rpcUrl,
          DEVNET_AUCTION_INTERVAL_MS: '100',
          BUILTIN_SOLVER: 'false',
          EXTERNAL_SOLVERS: JSON.stringify([
            { name: 'probe', url: solver.url, address: `0x${'a'.repeat(40)}` },
          ]),
        },
      });
      // One order is enough for auctions to be cut: its counterpart is signed, never placed.
      const wallets = [newWallet(), newWallet()];
      await chain.fund(
        wallets[0]!.address as Address,
        chain.deployment.weth.address,
        2n * 10n ** 18n,
      );
      const [order] = await signCowPair(chain, [wallets[0]!, wallets[1]!]);
      await placeTrades(service.devnet, [order!]);

      const recorded = async () =>
        (await service!.ledger.readAll(null, 100_000))
          .filter((e) => e.type === 'AuctionClosed')
          .map((e) => (e.data as { id: number }).id);
      await waitFor(
        async () => lostDuring !== null && (await recorded()).some((id) => id > lostDuring!),
        { timeoutMs: 20_000, description: 'an auction after the lost one recorded' },
      );
      expect(lostDuring).to.not.equal(null);
      expect(await recorded()).to.not.include(lostDuring);
    } finally {
      await service?.stop();
      await solver.close();
      await admin.end();
      await chain.stop();
    }
  });
});
