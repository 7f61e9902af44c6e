/**
 * The auctions run on a thread of their own (src/auction-thread): what they log reaches the
 * service's log, and a thread that ends unasked, mid-auction, is started again: its leader
 * sessions end with it, so the next thread leads, cuts the same orders again and settles them,
 * while the API serves on.
 */
import { expect } from 'chai';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { placeTrades } from '../../support/place.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { fundedCowPair } from '../../support/settle.js';
import { armEndings, ENDED_ON_PURPOSE } from '../../support/thread-endings.js';
import { waitFor } from '../../support/wait.js';
import { capturingLogger } from '../delivery/fixtures.js';

const ENDING_URL = new URL('../../support/auction-thread-ending-worker.ts', import.meta.url).href;

describe('auction thread: the autopilots off the serving thread', function () {
  this.timeout(90_000);
  let chain: TestChain;
  let service: TestService;
  let disarm: () => Promise<void>;
  const { logger, lines } = capturingLogger();

  before(async () => {
    chain = await startTestChain();
    disarm = await armEndings(1, 'exit');
    service = await startTestService({
      env: { DEVNET_RPC_URL: chain.rpcUrl, DEVNET_AUCTION_INTERVAL_MS: '100' },
      logger,
      auctionThreadUrl: ENDING_URL,
    });
  });

  after(async () => {
    await service?.stop();
    await disarm?.();
    await chain?.stop();
  });

  const statusOf = async (uid: string) =>
    (await http<{ status: string }>('GET', `${service.devnet}/api/v1/orders/${uid}`)).body.status;

  it('starts again after it ends mid-auction, and the next thread settles the orders', async () => {
    const pair = await fundedCowPair(chain);
    await placeTrades(service.devnet, pair);

    const ended = `the auction thread ended (exit code ${ENDED_ON_PURPOSE})`;
    await waitFor(
      () => lines.some((line) => (line.err as { message?: string })?.message === ended),
      {
        timeoutMs: 20_000,
        description: 'the thread’s end reported',
      },
    );
    // The API serves while no auction thread runs.
    expect(await statusOf(pair[0].uid)).to.equal('open');
    await waitFor(
      async () =>
        (await Promise.all(pair.map((t) => statusOf(t.uid)))).every((s) => s === 'fulfilled'),
      { timeoutMs: 40_000, description: 'both orders settled by the thread started again' },
    );
    // The next thread's log reaches the service's, as its own lines.
    const closed = lines.filter((line) => line.msg === 'auction closed');
    expect(closed, 'auctions closed by the thread started again').to.have.length.above(0);
    expect(closed[0]).to.include({
      service: 'batchbook',
      component: 'autopilot',
      network: 'devnet',
    });
  });
});
