/**
 * Properties of every solution the built-in solver proposes for random auctions, checked with
 * the settlement contract's and the pools' arithmetic written out again here, independently of
 * the solver's own checks.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { programSolver } from '../../../../src/auction/linear-programs.js';
import type { Address } from '../../../../src/domain/events.js';
import type { ProgramSolver } from '../../../../src/domain/solver/linear-program.js';
import { gcd } from '../../../../src/domain/solver/execution.js';
import type { OrderTerms } from '../../../../src/domain/order-terms.js';
import { score } from '../../../../src/domain/referee/score.js';
import { solve } from '../../../../src/domain/solver/solve.js';
import type { Solution, SolverAuction } from '../../../../src/domain/solver/types.js';
import {
  CYCLES,
  DDAI,
  DUSD,
  WETH,
  atoms,
  directedPairs,
  magnitude,
  randomAuctions,
  randomPrices,
  ringAuctions,
  uid,
} from './fixtures.js';

const MAX_UINT256 = (1n << 256n) - 1n;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const uniswapOut = (amountIn: bigint, reserveIn: bigint, reserveOut: bigint) =>
  (amountIn * 997n * reserveOut) / (reserveIn * 1000n + amountIn * 997n);

/**
 * Checks `solution` against `auction` as the contract and the pools would execute it, and
 * returns each order's executed {sell, buy} and the pools' reserves after it.
 */
function assertSound(solution: Solution, auction: SolverAuction) {
  const byUid = new Map(auction.orders.map((o) => [o.uid, o]));
  const balance = new Map<Address, bigint>();
  const add = (token: Address, amount: bigint) =>
    balance.set(token, (balance.get(token) ?? 0n) + amount);
  const executed = new Map<string, { sell: bigint; buy: bigint }>();

  // Uniform clearing prices: one positive price per token, keyed by the token's one spelling.
  const priced = [...solution.clearingPrices.keys()];
  expect(new Set(priced.map((t) => t.toLowerCase())).size).to.equal(priced.length);
  for (const price of solution.clearingPrices.values()) expect(price > 0n).to.equal(true);

  expect(solution.trades.length).to.be.greaterThan(0);
  for (const trade of solution.trades) {
    const order = byUid.get(trade.uid);
    expect(order, 'an auction order').to.not.equal(undefined);
    expect(executed.has(trade.uid), 'traded once').to.equal(false);
    const o = order!;
    const [ps, pb] = [
      solution.clearingPrices.get(o.sellToken)!,
      solution.clearingPrices.get(o.buyToken)!,
    ];
    expect(ps > 0n && pb > 0n, 'both tokens priced').to.equal(true);
    // Limit price, on the signed amounts, without overflow.
    expect(o.sellAmount * ps <= MAX_UINT256 && o.buyAmount * pb <= MAX_UINT256).to.equal(true);
    expect(o.sellAmount * ps >= o.buyAmount * pb, 'limit price respected').to.equal(true);
    const full = o.kind === 'sell' ? o.sellAmount : o.buyAmount;
    const filled = o.executed;
    if (o.partiallyFillable) {
      expect(trade.executedAmount > 0n, 'executes something').to.equal(true);
      expect(filled + trade.executedAmount <= full, 'not beyond what is left').to.equal(true);
    } else {
      // Fill-or-kill: all of it, and only if nothing was filled before.
      expect(filled).to.equal(0n);
      expect(trade.executedAmount).to.equal(full);
    }
    const sell = o.kind === 'sell' ? trade.executedAmount : (trade.executedAmount * pb) / ps;
    const buy = o.kind === 'sell' ? ceilDiv(trade.executedAmount * ps, pb) : trade.executedAmount;
    // Surplus over the limit, never negative (a better rate than the limit's).
    expect(buy * o.sellAmount >= sell * o.buyAmount, 'surplus not negative').to.equal(true);
    executed.set(trade.uid, { sell, buy });
    add(o.sellToken, sell);
    add(o.buyToken, -buy);
  }

  const reserves = new Map(auction.pools.map((p) => [p.address, { ...p }]));
  for (const swap of solution.swaps) {
    const pool = reserves.get(swap.pool)!;
    expect(pool, 'a known pool').to.not.equal(undefined);
    const forward = swap.tokenIn === pool.token0;
    expect([swap.tokenIn, swap.tokenOut]).to.have.members([pool.token0, pool.token1]);
    const [rin, rout] = forward ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0];
    expect(
      swap.amountOut > 0n && swap.amountOut <= uniswapOut(swap.amountIn, rin, rout),
      'the pair pays',
    ).to.equal(true);
    if (forward) [pool.reserve0, pool.reserve1] = [rin + swap.amountIn, rout - swap.amountOut];
    else [pool.reserve1, pool.reserve0] = [rin + swap.amountIn, rout - swap.amountOut];
    add(swap.tokenIn, -swap.amountIn);
    add(swap.tokenOut, swap.amountOut);
  }
  // Conservation: the contract pays out no token it did not take in.
  for (const [token, left] of balance) expect(left >= 0n, `${token} conserved`).to.equal(true);

  const value = score(solution, auction);
  expect(value !== null && value > 0n, 'positive score').to.equal(true);
  return { executed, pools: [...reserves.values()] };
}

/** The auction after `solution` settled: fills counted as the contract counts them, pools moved. */
function after(auction: SolverAuction, solution: Solution): SolverAuction {
  const { executed, pools } = assertSound(solution, auction);
  return {
    ...auction,
    id: auction.id + 1,
    pools,
    orders: auction.orders.map((o) => {
      const done = executed.get(o.uid);
      return done ? { ...o, executed: o.executed + (o.kind === 'sell' ? done.sell : done.buy) } : o;
    }),
  };
}

/** Random auctions, and random auctions with a ring-shaped order set among their orders. */
const AUCTIONS = [
  ['random auctions', randomAuctions],
  ['ring-shaped order sets', ringAuctions],
] as const;

describe('solver properties (random auctions)', () => {
  for (const [name, auctions] of AUCTIONS) {
    it(`proposes only sound solutions: uniform prices, limits, conservation, fills, surplus (${name})`, () => {
      fc.assert(
        fc.property(auctions, (auction) => {
          const solutions = solve(auction);
          expect(solutions.length).to.be.at.most(3);
          let previous: bigint | null = null;
          for (const solution of solutions) {
            assertSound(solution, auction);
            const value = score(solution, auction)!;
            if (previous !== null) expect(value <= previous, 'best first').to.equal(true);
            previous = value;
          }
          // Fairness filter (reference §6): no single-pair solution offered beside a several-pair
          // one scores more on its pair than the several-pair one does.
          const pairs = solutions.map((solution) => directedPairs(solution, auction));
          for (const [i, many] of pairs.entries()) {
            if (many.size < 2) continue;
            for (const single of pairs) {
              const [pair] = [...single.keys()];
              if (single.size !== 1 || !many.has(pair!)) continue;
              expect(single.get(pair!)! <= many.get(pair!)!, `solution ${i} fair`).to.equal(true);
            }
          }
        }),
        { numRuns: 150 },
      );
    });

    it(`stays sound across two auctions: partial fills continue, nothing fills twice (${name})`, () => {
      fc.assert(
        fc.property(auctions, (auction) => {
          const [first] = solve(auction);
          if (first === undefined) return;
          const next = after(auction, first);
          for (const solution of solve(next)) assertSound(solution, next);
        }),
        { numRuns: 100 },
      );
    });
  }

  describe('with the optimizer (HiGHS), as the service runs it', () => {
    let optimizer: ProgramSolver;
    before(async () => {
      optimizer = await programSolver();
    });
    const best = (solutions: readonly Solution[], auction: SolverAuction) =>
      solutions.reduce((most, s) => {
        const value = score(s, auction)!;
        return value > most ? value : most;
      }, 0n);

    for (const [name, auctions] of AUCTIONS) {
      it(`proposes only sound solutions, the best scoring at least the pair-by-pair solver's best (${name})`, () => {
        let improved = 0;
        fc.assert(
          fc.property(auctions, fc.constantFrom(0n, 10n), (auction, slippageBps) => {
            const optimized = solve(auction, { slippageBps }, optimizer);
            expect(optimized.length).to.be.at.most(3);
            for (const solution of optimized) assertSound(solution, auction);
            const pairByPair = solve(auction, { slippageBps });
            const [ours, theirs] = [best(optimized, auction), best(pairByPair, auction)];
            expect(ours >= theirs).to.equal(true);
            if (ours > theirs) improved++;
          }),
          { numRuns: 60 },
        );
        // Not a property: a sign that the optimizer's batch still wins some of these auctions.
        expect(improved, 'auctions the optimizer improved').to.be.greaterThan(0);
      });
    }
  });

  it('finds the ring of three fill-or-kill orders whose amounts balance at the market', () => {
    fc.assert(
      fc.property(
        randomPrices,
        fc.constantFrom(...CYCLES),
        magnitude(12, 22),
        fc.tuple(...[0, 1, 2].map(() => fc.integer({ min: 70, max: 100 }))),
        fc.tuple(...[0, 1, 2].map(() => fc.constantFrom('sell' as const, 'buy' as const))),
        (native, cycle, value, asks, kinds) => {
          // Each leg moves exactly the ring's amount of its token: all of them fill at the prices
          // 1 / amount, within every limit (each asks at most the market).
          const amount = cycle.map((token) => atoms(value, token, native));
          const orders = cycle.map((sellToken, i): OrderTerms => {
            const j = (i + 1) % 3;
            const [sellAmount, buyAmount] =
              kinds[i] === 'sell'
                ? [amount[i]!, (amount[j]! * BigInt(asks[i]!)) / 100n]
                : [(amount[i]! * 100n) / BigInt(asks[i]!), amount[j]!];
            return {
              uid: uid(i + 1),
              owner: WETH,
              sellToken,
              buyToken: cycle[j]!,
              sellAmount,
              buyAmount: buyAmount > 0n ? buyAmount : 1n,
              kind: kinds[i]!,
              partiallyFillable: false,
              executed: 0n,
            };
          });
          const auction = { id: 1, orders, nativePrices: native, pools: [], wrappedNative: WETH };
          const solutions = solve(auction);
          // A few atoms leave no surplus to score; real amounts always do. At exact prices the
          // contract's product of an amount and its price is the ring's value, a multiple of the
          // amounts' least common multiple: beyond uint256 no ring exists. When a buy leg and the
          // sell leg after it fix the same token, the third token's amount is free: the solver
          // picks it near the market, and an amount sharing large factors with the other two
          // (which could fit where the market's does not) is not searched for. So the free
          // amount counts whole.
          if (amount.some((a) => a < 10n ** 6n) || asks.every((ask) => ask === 100)) return;
          const fixedBy = (i: number) => (kinds[i] === 'sell' ? i : (i + 1) % 3);
          const fixed = new Set([0, 1, 2].map(fixedBy));
          const lcm = [0, 1, 2]
            .filter((t) => fixed.has(t))
            .reduce((l, t) => (l * amount[t]!) / gcd(l, amount[t]!), 1n);
          const free = [0, 1, 2].find((t) => !fixed.has(t));
          if (lcm * (free === undefined ? 1n : amount[free]!) * 2n > MAX_UINT256) return;
          expect(solutions.length).to.be.greaterThan(0);
          const [ring] = solutions;
          expect(ring!.trades).to.have.length(3);
          expect(ring!.swaps).to.deep.equal([]);
          expect([...ring!.clearingPrices.keys()]).to.have.members([...cycle]);
          assertSound(ring!, auction);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('finds the coincidence of two opposite orders at the market price', () => {
    fc.assert(
      fc.property(
        randomPrices,
        magnitude(12, 22),
        fc.integer({ min: 70, max: 99 }),
        (native, value, ask) => {
          // Both ask less than the market: they always cross.
          const [a, b] = [atoms(value, DUSD, native), atoms(value, DDAI, native)];
          const orders: OrderTerms[] = [
            {
              uid: uid(1),
              owner: WETH,
              sellToken: DUSD,
              buyToken: DDAI,
              sellAmount: a,
              buyAmount: (b * BigInt(ask)) / 100n + 1n,
              kind: 'sell',
              partiallyFillable: true,
              executed: 0n,
            },
            {
              uid: uid(2),
              owner: WETH,
              sellToken: DDAI,
              buyToken: DUSD,
              sellAmount: b,
              buyAmount: (a * BigInt(ask)) / 100n + 1n,
              kind: 'sell',
              partiallyFillable: true,
              executed: 0n,
            },
          ];
          const auction = { id: 1, orders, nativePrices: native, pools: [], wrappedNative: WETH };
          const solutions = solve(auction);
          // Amounts of a few atoms may be too coarse for any exact lot; real ones always match.
          if (a < 10n ** 6n || b < 10n ** 6n) return;
          expect(solutions.length).to.be.greaterThan(0);
          expect(solutions[0]!.trades).to.have.length(2);
          assertSound(solutions[0]!, auction);
        },
      ),
      { numRuns: 100 },
    );
  });
});
