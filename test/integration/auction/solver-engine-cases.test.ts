/**
 * A CoW solver engine plugged in unchanged: an engine answering as cowprotocol/services' baseline
 * engine does (test/support/baseline-engine.ts, the shapes of its published test cases: a direct
 * swap through a pool, a buy order, a partial fill, a fee on every limit order) competes in the
 * devnet's auctions over HTTP, and the real GPv2Settlement settles what it proposes. Every
 * auction it is sent is a valid `Auction` of the published API; the trades, the competition and
 * the engine's feedback show what happened.
 */
import { expect } from 'chai';
import type { Wallet } from 'ethers';
import type { Notification } from '../../../src/auction/solver-api/types.js';
import type { Address, AuctionClosedV5, RankedSolution } from '../../../src/domain/events.js';
import { baselineAnswer } from '../../support/baseline-engine.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { placeTrades } from '../../support/place.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { sellOrder, signTrade, type SignedTrade } from '../../support/settle.js';
import { newWallet } from '../../support/signing.js';
import { expectSolverApi } from '../../support/solver-engine-openapi.js';
import { startSolverServer, type SolverServer } from '../../support/solver-server.js';
import { shownTrades } from '../../support/trades.js';
import { waitFor } from '../../support/wait.js';

const E18 = 10n ** 18n;
const BASELINE: Address = '0x00000000000000000000000000000000000ba5e1';

describe('a CoW solver engine in the devnet’s auctions', function () {
  this.timeout(120_000);

  let chain: TestChain;
  let service: TestService;
  let engine: SolverServer;
  let token: Record<'WETH' | 'DUSD' | 'DCOW', Address>;

  before(async () => {
    chain = await startTestChain();
    engine = await startSolverServer({ respond: baselineAnswer });
    service = await startTestService({
      env: {
        DEVNET_RPC_URL: chain.rpcUrl,
        DEVNET_AUCTION_INTERVAL_MS: '200',
        SOLVE_TIMEOUT_MS: '2000',
        BUILTIN_SOLVER: 'false',
        EXTERNAL_SOLVERS: JSON.stringify([
          { name: 'baseline', url: engine.url, address: BASELINE },
        ]),
      },
    });
    const of = (symbol: string) =>
      [chain.deployment.weth, ...chain.deployment.tokens].find((t) => t.symbol === symbol)!.address;
    token = { WETH: of('WETH'), DUSD: of('DUSD'), DCOW: of('DCOW') };
  });

  after(async () => {
    await service?.stop();
    await engine?.close();
    await chain?.stop();
  });

  async function owner(sold: Address, amount: bigint): Promise<Wallet> {
    const wallet = newWallet();
    await chain.fund(wallet.address as Address, sold, amount);
    return wallet;
  }

  const status = async (uid: string) =>
    (await http<{ status: string }>('GET', `${service.devnet}/api/v1/orders/${uid}`)).body.status;

  /** The winning solution of the auction that settled `uid`, as recorded. */
  async function winnerOf(uid: string, txHash: string): Promise<RankedSolution> {
    const competition = (
      await http<{ auctionId: number }>(
        'GET',
        `${service.devnet}/api/v2/solver_competition/by_tx_hash/${txHash}`,
      )
    ).body;
    const closed = (
      await service.ledger.readStream(`auction-devnet-${competition.auctionId}`)
    ).find((e) => e.type === 'AuctionClosed')!.data as AuctionClosedV5;
    return closed.solutions.find((s) => s.isWinner && s.orders.some((o) => o.uid === uid))!;
  }

  it('settles its direct swap, its buy order and its partial fill, each with its fee, and tells it so', async () => {
    // direct_swap: 1 WETH for at least 2,900 DUSD (the pool gives ~2,988).
    const swapper = await owner(token.WETH, E18);
    const swap = await signTrade(
      chain,
      swapper,
      sellOrder({
        sellToken: token.WETH,
        buyToken: token.DUSD,
        sellAmount: E18.toString(),
        buyAmount: (2_900n * E18).toString(),
      }),
    );
    // buy_order_rounding: exactly 10,000 DCOW for at most 1.1 WETH (the pool takes ~1.003).
    const buyer = await owner(token.WETH, 2n * E18);
    const buy = await signTrade(
      chain,
      buyer,
      sellOrder({
        kind: 'buy',
        sellToken: token.WETH,
        buyToken: token.DCOW,
        sellAmount: ((11n * E18) / 10n).toString(),
        buyAmount: (10_000n * E18).toString(),
      }),
    );
    // partial_fill: 1,000,000 DCOW for at least 94 WETH. Whole, the pool gives ~90.7; half,
    // ~47.6 of the 47 asked: the engine fills half.
    const seller = await owner(token.DCOW, 1_000_000n * E18);
    const partial = await signTrade(
      chain,
      seller,
      sellOrder({
        sellToken: token.DCOW,
        buyToken: token.WETH,
        sellAmount: (1_000_000n * E18).toString(),
        buyAmount: (94n * E18).toString(),
        partiallyFillable: true,
      }),
    );
    const orders: SignedTrade[] = [swap, buy, partial];
    await placeTrades(service.devnet, orders);
    await waitFor(
      async () =>
        (await status(swap.uid)) === 'fulfilled' &&
        (await status(buy.uid)) === 'fulfilled' &&
        (await shownTrades(service.devnet, partial.uid).catch(() => [])).length > 0,
      { timeoutMs: 60_000, intervalMs: 100, description: 'the three orders traded' },
    );

    const fees = new Map<string, bigint>();
    for (const order of orders) {
      const [trade] = await shownTrades<{
        sellAmount: string;
        buyAmount: string;
        txHash: string;
      }>(service.devnet, order.uid);
      const winner = await winnerOf(order.uid, trade!.txHash);
      expect(winner.solver).to.equal('baseline');
      const recorded = winner.orders.find((o) => o.uid === order.uid)!;
      // The chain moved what the competition recorded: the fee inside what the trader paid.
      expect(trade!.sellAmount, 'sold').to.equal(recorded.sellAmount);
      expect(trade!.buyAmount, 'bought').to.equal(recorded.buyAmount);
      expect(BigInt(recorded.fee) > 0n, 'a fee on a limit order').to.equal(true);
      fees.set(order.uid, BigInt(recorded.fee));
      // The engine learnt that its solution landed, in that transaction.
      await waitFor(
        () =>
          engine.notifications.some(
            (n: Notification) =>
              n.kind === 'success' &&
              n.transaction === trade!.txHash &&
              n.solutionId === winner.solutionId,
          ),
        { description: `the engine told of ${trade!.txHash}` },
      );
    }

    const [swapped] = await shownTrades<{ sellAmount: string }>(service.devnet, swap.uid);
    expect(swapped!.sellAmount, 'fill-or-kill: the whole 1 WETH, the fee inside').to.equal(
      E18.toString(),
    );
    const [bought] = await shownTrades<{ buyAmount: string }>(service.devnet, buy.uid);
    expect(bought!.buyAmount).to.equal((10_000n * E18).toString());
    const [filled] = await shownTrades<{ sellAmount: string }>(service.devnet, partial.uid);
    expect(filled!.sellAmount, 'half the DCOW, and its fee on top').to.equal(
      (500_000n * E18 + fees.get(partial.uid)!).toString(),
    );

    // Every auction the engine was sent is one the published API allows.
    expect(engine.requests.length).to.be.greaterThan(0);
    for (const request of engine.requests) expectSolverApi('Auction', request);
  });
});
