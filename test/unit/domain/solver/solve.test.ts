import { expect } from 'chai';
import { amountOut } from '../../../../src/domain/amm.js';
import type { OrderTerms } from '../../../../src/domain/order-terms.js';
import { score } from '../../../../src/domain/referee/score.js';
import { settlementGas } from '../../../../src/domain/solver/execution.js';
import { executedAmounts } from '../../../../src/domain/trade-execution.js';
import { coincidences, simplestBetween } from '../../../../src/domain/solver/coincidence.js';
import { MAX_SETTLEMENT_GAS } from '../../../../src/domain/solver/execution.js';
import { solve } from '../../../../src/domain/solver/solve.js';
import type { Solution } from '../../../../src/domain/solver/types.js';
import {
  DDAI,
  DUSD,
  E18,
  WETH,
  auction,
  ddaiPool,
  devnetPool,
  devnetPrices,
  order,
} from './fixtures.js';

/** What each order of `solution` sells and buys, by uid. */
function fills(solution: Solution, orders: readonly OrderTerms[]) {
  return new Map(
    solution.trades.flatMap((trade) => {
      const o = orders.find((candidate) => candidate.uid === trade.uid);
      return o
        ? [[trade.uid, executedAmounts(o, trade.executedAmount, solution.clearingPrices)!]]
        : [];
    }),
  );
}

/** `order` after `solution` settled: its fill counted as the contract counts it. */
function settled(o: OrderTerms, solution: Solution): OrderTerms {
  const done = fills(solution, [o]).get(o.uid);
  if (done === undefined) return o;
  return { ...o, executed: o.executed + (o.kind === 'sell' ? done.sell : done.buy) };
}

describe('solver', () => {
  describe('simplestBetween', () => {
    it('finds the fraction with the smallest denominator in a range', () => {
      expect(simplestBetween({ n: 29n, d: 10n }, { n: 31n, d: 10n })).to.deep.equal({
        n: 3n,
        d: 1n,
      });
      expect(simplestBetween({ n: 1n, d: 3n }, { n: 1n, d: 2n })).to.deep.equal({ n: 1n, d: 2n });
      expect(simplestBetween({ n: 3n, d: 10n }, { n: 35n, d: 100n })).to.deep.equal({
        n: 1n,
        d: 3n,
      });
      expect(simplestBetween({ n: 7n, d: 5n }, { n: 7n, d: 5n })).to.deep.equal({ n: 7n, d: 5n });
    });
  });

  describe('coincidences of wants', () => {
    it('matches two opposite fill-or-kill orders at a price within both limits', () => {
      const weth = order(1, {
        sellToken: WETH,
        buyToken: DUSD,
        sellAmount: E18,
        buyAmount: 2900n * E18,
      });
      const dusd = order(2, {
        sellToken: DUSD,
        buyToken: WETH,
        sellAmount: 3000n * E18,
        buyAmount: (99n * E18) / 100n,
      });
      const [best] = solve(auction([weth, dusd]));
      expect(best!.swaps).to.deep.equal([]);
      const done = fills(best!, [weth, dusd]);
      // Each gets exactly what the other gives: 1 WETH for 3000 DUSD.
      expect(done.get(weth.uid)).to.deep.equal({ sell: E18, buy: 3000n * E18 });
      expect(done.get(dusd.uid)).to.deep.equal({ sell: 3000n * E18, buy: E18 });
      const [pw, pd] = [best!.clearingPrices.get(WETH)!, best!.clearingPrices.get(DUSD)!];
      expect(pw * weth.sellAmount >= pd * weth.buyAmount).to.equal(true);
      expect(pd * dusd.sellAmount >= pw * dusd.buyAmount).to.equal(true);
      // Surplus: 100 DUSD for one, 0.01 WETH for the other.
      expect(score(best!, auction([weth, dusd]))).to.equal(
        (100n * E18 * (E18 / 3000n)) / E18 + E18 / 100n,
      );
    });

    it('clears partially fillable orders at the market price when it lies within both limits', () => {
      const weth = order(1, {
        sellToken: WETH,
        buyToken: DUSD,
        sellAmount: 10n * E18,
        buyAmount: 25_000n * E18,
        partiallyFillable: true,
      });
      const dusd = order(2, {
        sellToken: DUSD,
        buyToken: WETH,
        sellAmount: 6000n * E18,
        buyAmount: 2n * E18,
        partiallyFillable: true,
      });
      const [best] = coincidences([weth, dusd], WETH, DUSD, devnetPrices);
      const { solution } = best!;
      // The market (3000 DUSD per WETH) is inside [2500, 3000]: 2 WETH for 6000 DUSD.
      expect(solution.clearingPrices).to.deep.equal(
        new Map([
          [WETH, 3000n],
          [DUSD, 1n],
        ]),
      );
      const done = fills(solution, [weth, dusd]);
      expect(done.get(weth.uid)).to.deep.equal({ sell: 2n * E18, buy: 6000n * E18 });
      expect(done.get(dusd.uid)).to.deep.equal({ sell: 6000n * E18, buy: 2n * E18 });
    });

    it('leaves out a fill-or-kill order the other side cannot fill in full', () => {
      const twoWeth = order(1, {
        sellToken: WETH,
        buyToken: DUSD,
        sellAmount: 2n * E18,
        buyAmount: 5800n * E18,
      });
      const dusd = order(2, {
        sellToken: DUSD,
        buyToken: WETH,
        sellAmount: 3000n * E18,
        buyAmount: (99n * E18) / 100n,
        partiallyFillable: true,
      });
      expect(solve(auction([twoWeth, dusd]))).to.deep.equal([]);
    });

    it('fills a partially fillable order across two auctions, never beyond its amount', () => {
      let weth = order(1, {
        sellToken: WETH,
        buyToken: DUSD,
        sellAmount: 10n * E18,
        buyAmount: 25_000n * E18,
        partiallyFillable: true,
      });
      const first = order(2, {
        sellToken: DUSD,
        buyToken: WETH,
        sellAmount: 12_000n * E18,
        buyAmount: 4n * E18,
      });
      const [one] = solve(auction([weth, first]));
      expect(fills(one!, [weth, first]).get(weth.uid)).to.deep.equal({
        sell: 4n * E18,
        buy: 12_000n * E18,
      });
      weth = settled(weth, one!);

      // The second buyer wants 10 WETH at 3000; 6 are left.
      const second = order(3, {
        sellToken: DUSD,
        buyToken: WETH,
        sellAmount: 30_000n * E18,
        buyAmount: 9n * E18,
        partiallyFillable: true,
      });
      const [two] = solve(auction([weth, second], [], 2));
      expect(fills(two!, [weth, second]).get(weth.uid)).to.deep.equal({
        sell: 6n * E18,
        buy: 18_000n * E18,
      });
      weth = settled(weth, two!);
      expect(weth.executed).to.equal(weth.sellAmount);

      const third = order(4, {
        sellToken: DUSD,
        buyToken: WETH,
        sellAmount: 3000n * E18,
        buyAmount: E18 / 2n,
      });
      expect(solve(auction([weth, third], [], 3))).to.deep.equal([]);
    });
  });

  describe('settlement size', () => {
    it('keeps every solution within the gas a block can take, even with thousands of matching orders', () => {
      // 1,500 orders a side, every one of which could trade: far more than one settlement holds.
      const orders = Array.from({ length: 3000 }, (_, i) =>
        i % 2 === 0
          ? order(i + 1, {
              sellToken: WETH,
              buyToken: DUSD,
              sellAmount: E18,
              buyAmount: 2990n * E18 - BigInt(i) * 10n ** 17n,
            })
          : order(i + 1, {
              sellToken: DUSD,
              buyToken: WETH,
              sellAmount: 3000n * E18,
              buyAmount: (99n * E18) / 100n - BigInt(i) * 10n ** 12n,
            }),
      );
      const solutions = solve(auction(orders, [devnetPool]));
      expect(solutions.length).to.be.greaterThan(0);
      for (const solution of solutions) {
        expect(solution.gas <= MAX_SETTLEMENT_GAS, `gas ${solution.gas}`).to.equal(true);
        expect(settlementGas(solution.trades.length, solution.swaps.length)).to.equal(solution.gas);
      }
      // The most generous asks are the ones taken.
      const best = solutions[0]!;
      const taken = new Set(best.trades.map((t) => t.uid));
      expect(taken.has(orders.at(-1)!.uid) || taken.has(orders.at(-2)!.uid)).to.equal(true);
    });
  });

  describe('routing through pools', () => {
    it('gives an order routed through the devnet pool exactly amountOut', () => {
      const weth = order(1, {
        sellToken: WETH,
        buyToken: DUSD,
        sellAmount: E18,
        buyAmount: 2900n * E18,
      });
      const [best] = solve(auction([weth], [devnetPool]));
      const out = amountOut(E18, devnetPool.reserve1, devnetPool.reserve0)!;
      expect(out).to.equal(2988020943119709649479n);
      expect(best!.swaps).to.deep.equal([
        { pool: devnetPool.address, tokenIn: WETH, tokenOut: DUSD, amountIn: E18, amountOut: out },
      ]);
      expect(fills(best!, [weth]).get(weth.uid)).to.deep.equal({ sell: E18, buy: out });
    });

    it('routes a buy order, paying exactly amountIn', () => {
      const dusd = order(1, {
        sellToken: WETH,
        buyToken: DUSD,
        sellAmount: 2n * E18,
        buyAmount: 3000n * E18,
        kind: 'buy',
      });
      const [best] = solve(auction([dusd], [devnetPool]));
      const [swap] = best!.swaps;
      expect(swap!.amountOut).to.equal(3000n * E18);
      expect(fills(best!, [dusd]).get(dusd.uid)).to.deep.equal({
        sell: swap!.amountIn,
        buy: 3000n * E18,
      });
    });

    it('leaves out a fill-or-kill order the pool cannot fill at its limit', () => {
      const greedy = order(1, {
        sellToken: WETH,
        buyToken: DUSD,
        sellAmount: 10n * E18,
        buyAmount: 30_000n * E18,
      });
      expect(solve(auction([greedy], [devnetPool]))).to.deep.equal([]);
    });

    it('fills a partially fillable order by the amount earning the most surplus', () => {
      const big = order(1, {
        sellToken: WETH,
        buyToken: DUSD,
        sellAmount: 100n * E18,
        buyAmount: 290_000n * E18,
        partiallyFillable: true,
      });
      const [best] = solve(auction([big], [devnetPool]));
      const done = fills(best!, [big]).get(big.uid)!;
      // The pool's marginal rate 2,991,000 · 1000 / (1000 + x)² meets the 2900 limit at x ≈ 15.6 WETH.
      expect(done.sell / E18).to.equal(15n);
      const surplusAt = (sell: bigint) =>
        amountOut(sell, devnetPool.reserve1, devnetPool.reserve0)! * big.sellAmount -
        big.buyAmount * sell;
      expect(surplusAt(done.sell) >= surplusAt(done.sell + E18 / 100n)).to.equal(true);
      expect(surplusAt(done.sell) >= surplusAt(done.sell - E18 / 100n)).to.equal(true);
    });

    it('settles opposite orders and the pools in one batch at one price per token', () => {
      const orders = [
        order(1, {
          sellToken: WETH,
          buyToken: DUSD,
          sellAmount: 5n * E18,
          buyAmount: 14_000n * E18,
          partiallyFillable: true,
        }),
        order(2, {
          sellToken: DUSD,
          buyToken: WETH,
          sellAmount: 3000n * E18,
          buyAmount: (99n * E18) / 100n,
        }),
        order(3, {
          sellToken: DDAI,
          buyToken: WETH,
          sellAmount: 3000n * E18,
          buyAmount: (9n * E18) / 10n,
        }),
      ];
      const [best, ...others] = solve(auction(orders, [devnetPool, ddaiPool]));
      expect(best!.trades.map((t) => t.uid)).to.have.members(orders.map((o) => o.uid));
      expect([...best!.clearingPrices.keys()]).to.have.members([WETH, DUSD, DDAI]);
      for (const other of others)
        expect(score(other, auction(orders))! <= score(best!, auction(orders))!).to.equal(true);
    });
  });
});
