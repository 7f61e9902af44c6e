/**
 * External solvers in the service's own auctions, over real HTTP: a solver registered with
 * EXTERNAL_SOLVERS receives every auction as JSON with its deadline, and its winning solution is
 * settled on chain by the driver; a solver that answers too late or with garbage is left out
 * without holding up the round.
 */
import { expect } from 'chai';
import { parseUnits } from 'ethers';
import type { Address, AuctionClosedV5 } from '../../../src/domain/events.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { signCowPair } from '../../support/settle.js';
import { newWallet } from '../../support/signing.js';
import { startSolverServer, type SolverServer } from '../../support/solver-server.js';
import { placeTrades } from '../../support/place.js';
import { shownTrades } from '../../support/trades.js';
import { waitFor } from '../../support/wait.js';

const ALPHA: Address = '0x00000000000000000000000000000000000a1fa1';

describe('external solvers in the auctions of a running service', function () {
  this.timeout(60_000);

  let chain: TestChain;
  let service: TestService;
  const servers: SolverServer[] = [];

  before(async () => {
    // A chain of its own: its settlements would show up in every later suite's indexer.
    chain = await startTestChain();
    const [alpha, sloth, broken] = await Promise.all([
      startSolverServer(),
      startSolverServer({ silent: true }),
      startSolverServer({ respond: () => 'this is not JSON' }),
    ]);
    servers.push(alpha, sloth, broken);
    const solver = (name: string, url: string, address: string) => ({ name, url, address });
    service = await startTestService({
      env: {
        DEVNET_RPC_URL: chain.rpcUrl,
        DEVNET_AUCTION_INTERVAL_MS: '200',
        SOLVE_TIMEOUT_MS: '1000',
        BUILTIN_SOLVER: 'false',
        EXTERNAL_SOLVERS: JSON.stringify([
          solver('alpha', alpha.url, ALPHA),
          solver('sloth', sloth.url, `0x${'5'.repeat(40)}`),
          solver('broken', broken.url, `0x${'b'.repeat(40)}`),
        ]),
      },
    });
  });

  after(async () => {
    await service?.stop();
    await chain?.stop();
    await Promise.all(servers.map((s) => s.close()));
  });

  it('asks every solver, settles the winner’s solution, and ignores the late and the broken', async () => {
    const [first, second] = [newWallet(), newWallet()];
    await chain.fund(first.address as Address, chain.deployment.weth.address, parseUnits('2', 18));
    const dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
    await chain.fund(second.address as Address, dusd, parseUnits('4000', 18));
    const [a, b] = await signCowPair(chain, [first, second]);
    await placeTrades(service.devnet, [a, b]);

    const status = async () =>
      (await http<{ type: string }>('GET', `${service.devnet}/api/v1/orders/${a.uid}/status`)).body;
    await waitFor(async () => (await status()).type === 'traded', {
      timeoutMs: 30_000,
      description: 'the pair traded',
    });

    const [trade] = await shownTrades<{ txHash: string }>(service.devnet, a.uid);
    const competition = (
      await http<{ auctionId: number; solutions: { solverAddress: string; isWinner: boolean }[] }>(
        'GET',
        `${service.devnet}/api/v2/solver_competition/by_tx_hash/${trade!.txHash}`,
      )
    ).body;
    expect(competition.solutions.map((s) => [s.solverAddress, s.isWinner])).to.deep.include([
      ALPHA,
      true,
    ]);

    const auction = (
      await service.ledger.readStream(`auction-devnet-${competition.auctionId}`)
    ).find((e) => e.type === 'AuctionClosed')!.data as AuctionClosedV5;
    expect(new Set(auction.solutions.map((s) => s.solver))).to.deep.equal(new Set(['alpha']));
    // Every solver got the auction with the solve deadline, its whole timeout counted from when
    // it was asked (after the cut's chain reads); only alpha's answer counted.
    const [alpha, sloth, broken] = servers;
    const request = alpha!.requests.find((r) => r.id === String(competition.auctionId))!;
    expect(request.orders.map((o) => o.uid)).to.include.members([a.uid, b.uid]);
    expect(Date.parse(request.deadline) - Date.parse(auction.cutAt)).to.be.at.least(1000);
    expect(sloth!.requests.some((r) => r.id === String(competition.auctionId))).to.equal(true);
    expect(broken!.requests.some((r) => r.id === String(competition.auctionId))).to.equal(true);
  });
});
