/**
 * Hostile and broken solver engines beside an honest one, in the devnet's auctions over HTTP: an
 * engine answering an unknown order, an over-fill, a limit not met, prices that do not clear, a
 * liquidity id it was never sent or a call to the vault relayer; one answering a number beyond
 * uint256; one answering more than the size bound; one never answering. Each is refused and
 * told why where the published API has a word for it; none of them holds up the round or costs
 * the honest engine its win.
 */
import { expect } from 'chai';
import type { Wallet } from 'ethers';
import type { Auction, Notification } from '../../../src/auction/solver-api/types.js';
import type { Address, AuctionClosedV5 } from '../../../src/domain/events.js';
import { VAULT_RELAYER } from '../../../src/domain/networks.js';
import { baselineAnswer } from '../../support/baseline-engine.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { placeTrades } from '../../support/place.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { sellOrder, signTrade } from '../../support/settle.js';
import { newWallet } from '../../support/signing.js';
import { startSolverServer, type SolverServer } from '../../support/solver-server.js';
import { shownTrades } from '../../support/trades.js';
import { waitFor } from '../../support/wait.js';

const E18 = 10n ** 18n;

type WireSolution = {
  id: number;
  prices: Record<string, string>;
  trades: { kind: string; order: string; executedAmount: string; fee?: string }[];
  interactions: Record<string, unknown>[];
};

/** The honest engine's solution for the auction's first order, which the tricks start from. */
function honest(auction: Auction): WireSolution | null {
  const { solutions } = baselineAnswer(auction) as { solutions: WireSolution[] };
  return solutions[0] ?? null;
}

/** One solution per trick, each breaking one rule, numbered so the feedback tells them apart. */
function tricks(auction: Auction): unknown {
  const base = honest(auction);
  if (base === null) return { solutions: [] };
  const [trade] = base.trades;
  const [sellToken, buyToken] = Object.keys(base.prices);
  const variant = (id: number, change: Partial<WireSolution>) => ({ ...base, id, ...change });
  return {
    solutions: [
      variant(1, { trades: [{ ...trade!, order: `0x${'ee'.repeat(56)}` }] }),
      variant(2, {
        trades: [{ ...trade!, executedAmount: `${BigInt(trade!.executedAmount) * 2n}` }],
      }),
      variant(3, {
        prices: { [sellToken!]: '1', [buyToken!]: base.prices[buyToken!]! },
      }),
      variant(4, {
        prices: {
          [sellToken!]: `${BigInt(base.prices[sellToken!]!) * 2n}`,
          [buyToken!]: base.prices[buyToken!]!,
        },
      }),
      variant(5, { interactions: [{ ...base.interactions[0], id: '999' }] }),
      variant(6, {
        interactions: [
          ...base.interactions,
          {
            kind: 'custom',
            target: VAULT_RELAYER,
            value: '0',
            callData: '0x',
            allowances: [],
            inputs: [],
            outputs: [],
          },
        ],
      }),
    ],
  };
}

describe('hostile solver engines beside an honest one', function () {
  this.timeout(120_000);

  let chain: TestChain;
  let service: TestService;
  const engines: Record<string, SolverServer> = {};

  before(async () => {
    chain = await startTestChain();
    engines.honest = await startSolverServer({ respond: baselineAnswer });
    engines.tricky = await startSolverServer({ respond: tricks });
    engines.overflow = await startSolverServer({
      respond: (auction) => {
        const base = honest(auction);
        if (base === null) return { solutions: [] };
        return {
          solutions: [
            { ...base, prices: { [Object.keys(base.prices)[0]!]: (1n << 256n).toString() } },
          ],
        };
      },
    });
    engines.huge = await startSolverServer({
      respond: () => JSON.stringify({ solutions: [], padding: 'x'.repeat(11 * 2 ** 20) }),
    });
    engines.silent = await startSolverServer({ silent: true });
    const address = (i: number) => `0x${String(i).repeat(40)}`;
    service = await startTestService({
      env: {
        DEVNET_RPC_URL: chain.rpcUrl,
        DEVNET_AUCTION_INTERVAL_MS: '200',
        SOLVE_TIMEOUT_MS: '1500',
        BUILTIN_SOLVER: 'false',
        EXTERNAL_SOLVERS: JSON.stringify(
          Object.entries(engines).map(([name, engine], i) => ({
            name,
            url: engine.url,
            address: address(i + 1),
          })),
        ),
      },
    });
  });

  after(async () => {
    await service?.stop();
    await Promise.all(Object.values(engines).map((engine) => engine.close()));
    await chain?.stop();
  });

  it('refuses each, tells each what it can, and settles the honest engine’s solution', async () => {
    const weth = chain.deployment.weth.address;
    const dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
    const trader: Wallet = newWallet();
    await chain.fund(trader.address as Address, weth, E18);
    const order = await signTrade(
      chain,
      trader,
      sellOrder({
        sellToken: weth,
        buyToken: dusd,
        sellAmount: E18.toString(),
        buyAmount: (2_900n * E18).toString(),
      }),
    );
    await placeTrades(service.devnet, [order]);
    await waitFor(
      async () =>
        (await http<{ status: string }>('GET', `${service.devnet}/api/v1/orders/${order.uid}`)).body
          .status === 'fulfilled',
      { timeoutMs: 60_000, intervalMs: 100, description: 'the order settled' },
    );

    const [trade] = await shownTrades<{ txHash: string }>(service.devnet, order.uid);
    const { auctionId } = (
      await http<{ auctionId: number }>(
        'GET',
        `${service.devnet}/api/v2/solver_competition/by_tx_hash/${trade!.txHash}`,
      )
    ).body;
    const closed = (await service.ledger.readStream(`auction-devnet-${auctionId}`)).find(
      (e) => e.type === 'AuctionClosed',
    )!.data as AuctionClosedV5;
    // Only the honest engine's solution was taken in; the round still ended in time.
    expect(closed.solutions.map((s) => s.solver)).to.deep.equal(['honest']);
    expect(closed.solutions[0]!.isWinner).to.equal(true);

    const told = (engine: string, id: number | null, kind: string) =>
      engines[engine]!.notifications.some(
        (n: Notification) =>
          n.auctionId === String(auctionId) && n.solutionId === id && n.kind === kind,
      );
    await waitFor(
      () =>
        told('tricky', 2, 'invalidExecutedAmount') &&
        told('tricky', 3, 'invalidClearingPrices') &&
        told('tricky', 4, 'invalidClearingPrices') &&
        told('silent', null, 'timeout'),
      {
        description: `the feedback on the refused solutions (told: ${JSON.stringify(
          Object.fromEntries(Object.entries(engines).map(([n, e]) => [n, e.notifications])),
        )})`,
      },
    );
    // Refusals the published API has no word for are not told: the unknown order, the unknown
    // liquidity, the vault relayer call; the unreadable answers are refused whole, untold.
    const byTricky = engines.tricky!.notifications.filter((n) => n.auctionId === String(auctionId));
    expect(byTricky.map((n) => n.solutionId).sort()).to.deep.equal([2, 3, 4]);
    for (const engine of ['overflow', 'huge']) {
      expect(
        engines[engine]!.requests.some((r) => r.id === String(auctionId)),
        engine,
      ).to.equal(true);
      expect(engines[engine]!.notifications, engine).to.deep.equal([]);
    }
    await waitFor(() => told('honest', closed.solutions[0]!.solutionId, 'success'), {
      description: 'the honest engine told of its success',
    });
  });
});
