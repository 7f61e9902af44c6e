/**
 * Rings: three orders (or legs of orders) going round X → Y → Z → X, matched with no pool at
 * one price per token.
 */
import { expect } from 'chai';
import type { Pool } from '../../../../src/domain/amm.js';
import type { Address } from '../../../../src/domain/events.js';
import type { OrderTerms } from '../../../../src/domain/order-terms.js';
import { score } from '../../../../src/domain/referee/score.js';
import { checkSolution, tokenBalances } from '../../../../src/domain/solver/execution.js';
import { executedAmounts } from '../../../../src/domain/trade-execution.js';
import {
  MAX_RING_CYCLES,
  MAX_RING_PRICES,
  RING_ORDERS_PER_LEG,
  bestRing,
  ringCycles,
  ringPrices,
  rings,
} from '../../../../src/domain/solver/rings.js';
import { MAX_SETTLEMENT_GAS } from '../../../../src/domain/solver/execution.js';
import { solve } from '../../../../src/domain/solver/solve.js';
import type { Solution, SolverAuction } from '../../../../src/domain/solver/types.js';
import {
  DDAI,
  DUSD,
  E18,
  T4,
  WETH,
  auction,
  ddaiPool,
  devnetPool,
  devnetPrices,
  order,
  uid,
} from './fixtures.js';

/** Sound as the contract executes it, and every token balancing to the atom (no pool adds any). */
function assertBalancedRing(solution: Solution, a: SolverAuction) {
  const orders = new Map(a.orders.map((o) => [o.uid, o]));
  expect(checkSolution(solution, orders, new Map())).to.equal(null);
  expect(solution.swaps).to.deep.equal([]);
  for (const [token, balance] of tokenBalances(solution, orders)!) {
    expect(balance, `${token} balances`).to.equal(0n);
  }
  for (const trade of solution.trades) {
    const o = orders.get(trade.uid)!;
    const [ps, pb] = [
      solution.clearingPrices.get(o.sellToken)!,
      solution.clearingPrices.get(o.buyToken)!,
    ];
    expect(o.sellAmount * ps >= o.buyAmount * pb, 'limit respected').to.equal(true);
  }
}

/** What each order of `solution` sells and buys, by uid. */
function fills(solution: Solution, orders: readonly OrderTerms[]) {
  return new Map(
    solution.trades.map((trade) => {
      const o = orders.find((candidate) => candidate.uid === trade.uid)!;
      return [trade.uid, executedAmounts(o, trade.executedAmount, solution.clearingPrices)!];
    }),
  );
}

const isRing = (solution: Solution) =>
  solution.swaps.length === 0 && solution.clearingPrices.size === 3;

/** WETH → DUSD → DDAI → WETH, fill-or-kill sell orders of 1 WETH, 3000 DUSD, 3000 DDAI. */
const exactRing = () => [
  order(1, { sellToken: WETH, buyToken: DUSD, sellAmount: E18, buyAmount: 2900n * E18 }),
  order(2, { sellToken: DUSD, buyToken: DDAI, sellAmount: 3000n * E18, buyAmount: 2950n * E18 }),
  order(3, {
    sellToken: DDAI,
    buyToken: WETH,
    sellAmount: 3000n * E18,
    buyAmount: E18 - E18 / 50n,
  }),
];

/** `exactRing`'s score at the market: 100 DUSD, 50 DDAI and 0.02 WETH of surplus. */
const RING_SCORE = 100n * (E18 / 3000n) + 50n * (E18 / 3000n) + E18 / 50n;

/** A DUSD/DDAI pair, DUSD its token0, `dusd` against `ddai` whole tokens. */
const dusdDdai = (dusd: bigint, ddai: bigint): Pool => ({
  address: '0x00000000000000000000000000000000000000f3',
  token0: DUSD,
  token1: DDAI,
  reserve0: dusd * E18,
  reserve1: ddai * E18,
});

describe('rings', () => {
  it('settles three fill-or-kill orders going round three tokens, balanced to the atom', () => {
    const orders = exactRing();
    const a = auction(orders);
    const [best, ...others] = solve(a);
    expect(others).to.deep.equal([]);
    expect(isRing(best!)).to.equal(true);
    expect(best!.trades.map((t) => t.uid)).to.have.members(orders.map((o) => o.uid));
    assertBalancedRing(best!, a);
    // At the market (3000 DUSD = 3000 DDAI = 1 WETH): each gets what the next one gives.
    expect(best!.clearingPrices).to.deep.equal(
      new Map([
        [DUSD, 1n],
        [DDAI, 1n],
        [WETH, 3000n],
      ]),
    );
    const done = fills(best!, orders);
    expect(done.get(uid(1))).to.deep.equal({ sell: E18, buy: 3000n * E18 });
    expect(done.get(uid(2))).to.deep.equal({ sell: 3000n * E18, buy: 3000n * E18 });
    expect(done.get(uid(3))).to.deep.equal({ sell: 3000n * E18, buy: E18 });
    // Surplus: 100 DUSD, 50 DDAI and 0.02 WETH, about 0.07 WETH in all.
    expect(score(best!, a)).to.equal(RING_SCORE);
  });

  it('balances fill-or-kill amounts that are not at the market, at their own exact ratios', () => {
    const orders = [
      order(1, { sellToken: WETH, buyToken: DUSD, sellAmount: E18, buyAmount: 2900n * E18 }),
      order(2, {
        sellToken: DUSD,
        buyToken: DDAI,
        sellAmount: 2987n * E18 + 123n,
        buyAmount: 2950n * E18,
      }),
      order(3, {
        sellToken: DDAI,
        buyToken: WETH,
        sellAmount: 3011n * E18 - 7n,
        buyAmount: E18 - E18 / 50n,
      }),
    ];
    const a = auction(orders);
    const [best] = solve(a);
    expect(isRing(best!)).to.equal(true);
    assertBalancedRing(best!, a);
    const done = fills(best!, orders);
    // Each buys exactly what the next sells.
    expect(done.get(uid(1))!.buy).to.equal(orders[1]!.sellAmount);
    expect(done.get(uid(2))!.buy).to.equal(orders[2]!.sellAmount);
    expect(done.get(uid(3))!.buy).to.equal(orders[0]!.sellAmount);
  });

  it('scales partially fillable legs to the smallest one', () => {
    const orders = [
      order(1, {
        sellToken: WETH,
        buyToken: DUSD,
        sellAmount: 2n * E18,
        buyAmount: 5800n * E18,
        partiallyFillable: true,
      }),
      order(2, {
        sellToken: DUSD,
        buyToken: DDAI,
        sellAmount: 3000n * E18,
        buyAmount: 2950n * E18,
        partiallyFillable: true,
      }),
      order(3, {
        sellToken: DDAI,
        buyToken: WETH,
        sellAmount: 9000n * E18,
        buyAmount: (29n * E18) / 10n,
        partiallyFillable: true,
      }),
    ];
    const a = auction(orders);
    const [best] = solve(a);
    expect(isRing(best!)).to.equal(true);
    assertBalancedRing(best!, a);
    const done = fills(best!, orders);
    // The DUSD leg (worth 1 WETH) fills in full; the others as far as it takes them.
    expect(done.get(uid(2))).to.deep.equal({ sell: 3000n * E18, buy: 3000n * E18 });
    expect(done.get(uid(1))).to.deep.equal({ sell: E18, buy: 3000n * E18 });
    expect(done.get(uid(3))).to.deep.equal({ sell: 3000n * E18, buy: E18 });
  });

  it('lets a partially fillable leg take what the fill-or-kill legs fix', () => {
    const orders = [
      order(1, {
        sellToken: WETH,
        buyToken: DUSD,
        sellAmount: E18,
        buyAmount: 2900n * E18,
        partiallyFillable: true,
      }),
      order(2, {
        sellToken: DUSD,
        buyToken: DDAI,
        sellAmount: 3000n * E18,
        buyAmount: 2950n * E18,
      }),
      // Buys 0.99 WETH, for at most 3100 DDAI.
      order(3, {
        sellToken: DDAI,
        buyToken: WETH,
        sellAmount: 3100n * E18,
        buyAmount: (99n * E18) / 100n,
        kind: 'buy',
      }),
    ];
    const a = auction(orders);
    const [best] = solve(a);
    expect(isRing(best!)).to.equal(true);
    assertBalancedRing(best!, a);
    const done = fills(best!, orders);
    expect(done.get(uid(1))).to.deep.equal({ sell: (99n * E18) / 100n, buy: 3000n * E18 });
    expect(done.get(uid(3))!.buy).to.equal((99n * E18) / 100n);
    expect(done.get(uid(2))!.sell).to.equal(3000n * E18);
  });

  it('does not offer a ring whose limits do not close (their product above 1)', () => {
    const orders = exactRing();
    // 3100 DUSD for 1 WETH, 3000 DDAI for 3000 DUSD, 1 WETH for 3000 DDAI: the limits'
    // product is 3100/3000 > 1, so some leg would get less than it asks whatever the prices.
    const greedy = [
      { ...orders[0]!, buyAmount: 3100n * E18 },
      { ...orders[1]!, buyAmount: 3000n * E18 },
      { ...orders[2]!, buyAmount: E18 },
    ];
    expect(ringCycles(greedy, devnetPrices)).to.deep.equal([]);
    expect(solve(auction(greedy))).to.deep.equal([]);
  });

  it('does not offer fill-or-kill orders whose amounts cannot balance', () => {
    const orders = exactRing();
    // The last one buys 0.99 WETH, the first sells 1 WETH: no price moves both in full.
    const [first, second] = orders;
    const third = order(3, {
      sellToken: DDAI,
      buyToken: WETH,
      sellAmount: 3100n * E18,
      buyAmount: (99n * E18) / 100n,
      kind: 'buy',
    });
    expect(ringCycles([first!, second!, third], devnetPrices)).to.have.length(1);
    expect(solve(auction([first!, second!, third]))).to.deep.equal([]);
  });

  it('does not offer a ring that pays less than the pools pay the same orders', () => {
    // Pools at the market; the WETH and DDAI legs twice the DUSD leg, partially fillable: the
    // ring fills 1 WETH's worth of them, the pools all of them.
    const pools = [devnetPool, dusdDdai(3_000_000n, 3_000_000n), ddaiPool];
    const [first, second, third] = exactRing();
    const orders = [
      { ...first!, sellAmount: 2n * E18, buyAmount: 5800n * E18, partiallyFillable: true },
      second!,
      {
        ...third!,
        sellAmount: 6000n * E18,
        buyAmount: 2n * (E18 - E18 / 50n),
        partiallyFillable: true,
      },
    ];
    const a = auction(orders, pools);
    const [ring] = rings(orders, devnetPrices);
    expect(score(ring!.solution, a)).to.equal(RING_SCORE);
    // Each order through the pools alone scores less than the ring, all three more: the ring
    // would take them from the pools for less.
    const alone = orders.map((o) => score(solve(auction([o], pools))[0]!, a)!);
    for (const value of alone) expect(value < RING_SCORE).to.equal(true);
    expect(alone.reduce((x, y) => x + y) > RING_SCORE).to.equal(true);
    const solutions = solve(a);
    for (const solution of solutions) expect(isRing(solution)).to.equal(false);
    expect(score(solutions[0]!, a)! > RING_SCORE).to.equal(true);
  });

  it('prefers the ring where it pays more than the pools at the market', () => {
    const pools = [devnetPool, dusdDdai(3_000_000n, 3_000_000n), ddaiPool];
    const orders = exactRing();
    const a = auction(orders, pools);
    const solutions = solve(a);
    const [best] = solutions;
    expect(isRing(best!)).to.equal(true);
    assertBalancedRing(best!, a);
    // Offered beside it: only solutions scoring less, none unfair to it.
    for (const other of solutions.slice(1)) {
      expect(score(other, a)! < score(best!, a)!).to.equal(true);
    }
  });

  it('takes a ring into a batch with another pair, at prices agreeing on the shared token', () => {
    const native = new Map([...devnetPrices, [T4, E18 / 10n]]);
    const orders = [
      ...exactRing(),
      order(4, {
        sellToken: T4,
        buyToken: WETH,
        sellAmount: 10n * E18,
        buyAmount: (95n * E18) / 100n,
      }),
      order(5, { sellToken: WETH, buyToken: T4, sellAmount: E18, buyAmount: (95n * E18) / 10n }),
    ];
    const a: SolverAuction = { ...auction(orders), nativePrices: native };
    const [best] = solve(a);
    expect(best!.trades.map((t) => t.uid)).to.have.members(orders.map((o) => o.uid));
    expect([...best!.clearingPrices.keys()]).to.have.members([WETH, DUSD, DDAI, T4]);
    const byUid = new Map(orders.map((o) => [o.uid, o]));
    expect(checkSolution(best!, byUid, new Map())).to.equal(null);
    for (const balance of tokenBalances(best!, byUid)!.values()) expect(balance).to.equal(0n);
  });

  it('works a ring out again at prices scaled by a common factor, trade for trade', () => {
    const orders = exactRing();
    const [ring] = rings(orders, devnetPrices);
    const scaled = new Map([...ring!.solution.clearingPrices].map(([t, p]) => [t, p * 7n]));
    const again = ring!.reprice(scaled);
    expect(again!.trades).to.deep.equal(ring!.solution.trades);
    expect(again!.clearingPrices).to.deep.equal(scaled);
  });

  describe('bounded work', () => {
    /** A deterministic stream of numbers in [0, 1). */
    const stream = (seed: number) => () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) & 0x7fffffff;
      return seed / 0x80000000;
    };

    /** `n` orders over `tokens` random tokens, limits within ±10% of the market. */
    function manyOrders(n: number, tokens: number, seed: number): SolverAuction {
      const random = stream(seed);
      const list = Array.from({ length: tokens }, (_, i): Address =>
        i === 0 ? WETH : `0x${(0x100 + i).toString(16).padStart(40, '0')}`,
      );
      const native = new Map(
        list.map((t, i) => [
          t,
          i === 0 ? E18 : BigInt(1 + Math.floor(random() * 999)) * 10n ** BigInt(8 + i),
        ]),
      );
      const orders = Array.from({ length: n }, (_, i): OrderTerms => {
        const s = Math.floor(random() * tokens);
        const b = (s + 1 + Math.floor(random() * (tokens - 1))) % tokens;
        const [sellToken, buyToken] = [list[s]!, list[b]!];
        const value = BigInt(1 + Math.floor(random() * 999)) * 10n ** 16n;
        const ask = BigInt(90 + Math.floor(random() * 20));
        return order(i + 1, {
          sellToken,
          buyToken,
          sellAmount: (value * E18) / native.get(sellToken)! + 1n,
          buyAmount: (((value * E18) / native.get(buyToken)!) * ask) / 100n + 1n,
          kind: random() < 0.5 ? 'sell' : 'buy',
          partiallyFillable: random() < 0.3,
        });
      });
      return { id: 1, orders, nativePrices: native, pools: [], wrappedNative: WETH };
    }

    for (const [orders, tokens] of [
      [2000, 5],
      [2000, 24],
    ] as const) {
      it(`tries at most ${MAX_RING_CYCLES} cycles, each with bounded legs and prices (${orders} orders, ${tokens} tokens)`, () => {
        const a = manyOrders(orders, tokens, orders + tokens);
        const cycles = ringCycles(a.orders, a.nativePrices);
        expect(cycles.length).to.be.greaterThan(0);
        expect(cycles.length).to.be.at.most(MAX_RING_CYCLES);
        // 24 tokens have thousands of cycles: the cap is what bounds the work.
        if (tokens > 5) expect(cycles.length).to.equal(MAX_RING_CYCLES);
        for (const ring of cycles) {
          for (const leg of ring.legs) expect(leg.length).to.be.within(1, RING_ORDERS_PER_LEG);
          expect(ringPrices(ring, a.nativePrices).length).to.be.at.most(MAX_RING_PRICES);
        }
        // Every ring offered (and every solution) is sound and within the gas cap.
        const byUid = new Map(a.orders.map((o) => [o.uid, o]));
        const found = cycles.flatMap((ring) => bestRing(ring, a.nativePrices) ?? []);
        expect(found.length).to.be.greaterThan(0);
        for (const { solution } of found)
          expect(checkSolution(solution, byUid, new Map())).to.equal(null);
        const solutions = solve(a);
        expect(solutions.length).to.be.greaterThan(0);
        for (const solution of solutions) {
          expect(checkSolution(solution, byUid, new Map())).to.equal(null);
          expect(solution.gas <= MAX_SETTLEMENT_GAS).to.equal(true);
        }
      });
    }
  });
});
