/**
 * The built-in solver on its own thread (src/auction/solver-thread/): the same answers as in
 * process, while the thread that asked serves on; a thread that ends costs only the auction it
 * was solving, and the next one is solved by a thread started again.
 */
import { expect } from 'chai';
import { createBuiltinSolver } from '../../../src/auction/builtin-solver.js';
import { auctionFor } from '../../../src/auction/solver-api/auction.js';
import type { Auction, SolverAnswer } from '../../../src/auction/solver-api/types.js';
import { startSolverThread, type SolverThread } from '../../../src/auction/solver-thread/thread.js';
import { SolverFailure } from '../../../src/auction/solver.js';
import type { Address } from '../../../src/domain/events.js';
import { auctionOrder } from '../../support/auction-orders.js';
import {
  CRASH_EXIT_CODE,
  CRASHING_SOLVER_WORKER,
  ENDLESS_AUCTION_ID,
  POISONED_AUCTION_ID,
} from '../../support/solver-thread-crashing.js';

const WETH: Address = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const DUSD: Address = '0x0000000000000000000000000000000000000001';
const SOLVER: Address = '0x2222222222222222222222222222222222222222';
const E18 = 10n ** 18n;
const PARAMS = { address: SOLVER, wrappedNative: WETH, slippageBps: 10n };

/** `size` orders both ways between WETH and DUSD, and the WETH/DUSD pool at ~3,000 DUSD. */
function auctionOf(size: number, id: string | null = '1'): Auction {
  const orders = Array.from({ length: size }, (_, n) =>
    n % 2 === 0
      ? auctionOrder(n, { sellAmount: String(E18 + BigInt(n)), buyAmount: String(2_900n * E18) })
      : auctionOrder(n, {
          sellToken: DUSD,
          buyToken: WETH,
          sellAmount: String(3_100n * E18 + BigInt(n)),
          buyAmount: String(E18),
        }),
  );
  const facts = { decimals: 18, symbol: null, availableBalance: 0n };
  const auction = auctionFor({
    id: id === null ? null : Number(id),
    deadline: new Date(Date.now() + 60_000),
    orders,
    referencePrices: { [WETH]: String(E18), [DUSD]: String(E18 / 3_000n) },
    tokens: new Map([
      [WETH, facts],
      [DUSD, facts],
    ]),
    trusted: new Set(),
    liquidity: [
      {
        id: '0',
        pool: {
          address: '0x3333333333333333333333333333333333333333',
          token0: '0x0000000000000000000000000000000000000001',
          token1: WETH,
          reserve0: 30_000_000n * E18,
          reserve1: 10_000n * E18,
          router: '0x4444444444444444444444444444444444444444',
        },
      },
    ],
    effectiveGasPrice: 10n ** 9n,
    wrappedNative: WETH,
  });
  return auction;
}

/** `solve()`'s answer, and how many timer turns this thread ran while it was being solved. */
async function solvedCountingTurns(
  solve: () => Promise<SolverAnswer>,
): Promise<{ answer: SolverAnswer; turns: number }> {
  let turns = 0;
  const ticker = setInterval(() => turns++, 1);
  try {
    const answer = await solve();
    return { answer, turns };
  } finally {
    clearInterval(ticker);
  }
}

const noDeadline = () => AbortSignal.timeout(120_000);

describe('the built-in solver on its own thread', function () {
  this.timeout(120_000);
  let thread: SolverThread | undefined;
  const errors: unknown[] = [];
  afterEach(async () => {
    await thread?.stop();
    thread = undefined;
    errors.length = 0;
  });

  it('answers a large auction as in process, while the asking thread keeps serving', async () => {
    thread = startSolverThread({ onError: (err) => errors.push(err) });
    const auction = auctionOf(3_000);
    const inProcess = createBuiltinSolver(PARAMS.address, PARAMS.wrappedNative, PARAMS);
    // The optimizer's WebAssembly loads, asynchronously, on a process's first solve.
    await inProcess.solve(auctionOf(10), noDeadline());
    const here = await solvedCountingTurns(() => inProcess.solve(auction, noDeadline()));
    const onThread = await solvedCountingTurns(() =>
      thread!.builtinSolver(PARAMS).solve(auction, noDeadline()),
    );

    expect(onThread.answer).to.deep.equal(here.answer);
    expect('solutions' in here.answer && here.answer.solutions).to.have.length.greaterThan(0);
    // In process the whole solve is one synchronous turn: no timer of this thread runs.
    expect(here.turns).to.equal(0);
    expect(onThread.turns).to.be.greaterThan(0);
    expect(errors).to.deep.equal([]);
  });

  it('a thread that ends costs the auction it was solving; the next is solved again', async () => {
    thread = startSolverThread({
      onError: (err) => errors.push(err),
      workerUrl: CRASHING_SOLVER_WORKER,
    });
    const solver = thread.builtinSolver(PARAMS);
    const failed = await solver.solve(auctionOf(10, POISONED_AUCTION_ID), noDeadline()).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failed).to.be.instanceOf(SolverFailure);
    expect((failed as SolverFailure).kind).to.equal('error');
    expect((failed as SolverFailure).message).to.contain(`exit code ${CRASH_EXIT_CODE}`);

    const auction = auctionOf(10);
    const expected = await createBuiltinSolver(PARAMS.address, PARAMS.wrappedNative, PARAMS).solve(
      auction,
      noDeadline(),
    );
    expect(await solver.solve(auction, noDeadline())).to.deep.equal(expected);
    expect(errors.map(String)).to.deep.equal([
      `Error: the solver thread ended (exit code ${CRASH_EXIT_CODE})`,
    ]);
  });

  it("solves a quote's one-order auction where it is asked, not on the thread", async () => {
    thread = startSolverThread({ onError: (err) => errors.push(err) });
    const solver = thread.builtinSolver(PARAMS);
    await thread.stop();
    const quote = auctionOf(1, null);
    const inProcess = createBuiltinSolver(PARAMS.address, PARAMS.wrappedNative, PARAMS);
    expect(await solver.solve(quote, noDeadline())).to.deep.equal(
      await inProcess.solve(quote, noDeadline()),
    );
    const stopped = await solver.solve(auctionOf(1), noDeadline()).then(
      () => null,
      (err: unknown) => err,
    );
    expect(stopped).to.be.instanceOf(SolverFailure);
  });

  it('an auction not answered by its deadline is a timeout', async () => {
    thread = startSolverThread({ onError: (err) => errors.push(err) });
    const failed = await thread
      .builtinSolver(PARAMS)
      .solve(auctionOf(3_000), AbortSignal.timeout(1))
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(failed).to.be.instanceOf(SolverFailure);
    expect((failed as SolverFailure).kind).to.equal('timeout');
  });

  it('a solve that overruns its deadline is ended: the auctions sent after it are answered', async () => {
    thread = startSolverThread({
      onError: (err) => errors.push(err),
      workerUrl: CRASHING_SOLVER_WORKER,
    });
    await thread.ready;
    const solver = thread.builtinSolver(PARAMS);
    const auction = auctionOf(10);
    const expected = await createBuiltinSolver(PARAMS.address, PARAMS.wrappedNative, PARAMS).solve(
      auction,
      noDeadline(),
    );
    const endless = solver.solve(auctionOf(10, ENDLESS_AUCTION_ID), AbortSignal.timeout(500)).then(
      () => null,
      (err: unknown) => err,
    );
    // Sent behind the endless one, with time enough: answered by the thread that replaces it.
    const behind = solver.solve(auction, noDeadline());
    const failed = await endless;
    expect(failed).to.be.instanceOf(SolverFailure);
    expect((failed as SolverFailure).kind).to.equal('timeout');
    expect(await behind).to.deep.equal(expected);
    expect(await solver.solve(auction, noDeadline())).to.deep.equal(expected);
    // Ending a thread that overran is no failure of the service's.
    expect(errors).to.deep.equal([]);
  });
});
