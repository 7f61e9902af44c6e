import { expect } from 'chai';
import { MAX_UINT256 } from '../../../../src/domain/amounts.js';
import { checkSolution, settlementGas } from '../../../../src/domain/solver/execution.js';
import {
  executedAmounts,
  nativeSurplus,
  remaining,
  respectsLimit,
} from '../../../../src/domain/trade-execution.js';
import { SETTLEMENT_SINGLE_TRADE_GAS } from '../../../../src/domain/amm.js';
import type { Solution } from '../../../../src/domain/solver/types.js';
import { DUSD, E18, WETH, devnetPool, devnetPrices, order } from './fixtures.js';

const prices = (weth: bigint, dusd: bigint) =>
  new Map([
    [WETH, weth],
    [DUSD, dusd],
  ]);

describe('solver execution (GPv2Settlement computeTradeExecution)', () => {
  const sell = order(1, { sellToken: WETH, buyToken: DUSD, sellAmount: 10n, buyAmount: 14n });
  const buy = order(2, {
    sellToken: WETH,
    buyToken: DUSD,
    sellAmount: 10n,
    buyAmount: 14n,
    kind: 'buy',
  });

  it('rounds in the trader’s favour: a sell order’s proceeds up, a buy order’s payment down', () => {
    // 10 · 3 / 2 = 15 exactly; 5 · 3 / 2 = 7.5 → 8 for a partial sell.
    expect(executedAmounts(sell, 0n, prices(3n, 2n))).to.deep.equal({ sell: 10n, buy: 15n });
    const partialSell = { ...sell, partiallyFillable: true };
    expect(executedAmounts(partialSell, 5n, prices(3n, 2n))).to.deep.equal({ sell: 5n, buy: 8n });
    // Buying 7 DUSD at 2/3 WETH each: 14 / 3 = 4.67 → pays 4.
    const partialBuy = { ...buy, partiallyFillable: true };
    expect(executedAmounts(partialBuy, 7n, prices(3n, 2n))).to.deep.equal({ sell: 4n, buy: 7n });
  });

  it('executes fill-or-kill orders in full whatever the executed amount says', () => {
    expect(executedAmounts(buy, 1n, prices(3n, 2n))).to.deep.equal({ sell: 9n, buy: 14n });
  });

  it('checks the limit on the signed amounts: sellAmount · p[sell] ≥ buyAmount · p[buy]', () => {
    expect(respectsLimit(sell, 14n, 10n)).to.equal(true);
    expect(respectsLimit(sell, 13n, 10n)).to.equal(false);
    expect(executedAmounts(sell, 0n, prices(13n, 10n))).to.equal(null);
    expect(respectsLimit(sell, MAX_UINT256, 1n)).to.equal(false);
  });

  it('refuses fills beyond what is left, and fill-or-kill orders filled before', () => {
    const partial = { ...sell, partiallyFillable: true, executed: 6n };
    expect(remaining(partial)).to.equal(4n);
    expect(executedAmounts(partial, 4n, prices(3n, 2n))).to.not.equal(null);
    expect(executedAmounts(partial, 5n, prices(3n, 2n))).to.equal(null);
    expect(remaining({ ...sell, executed: 10n })).to.equal(0n);
    expect(executedAmounts({ ...sell, executed: 10n }, 10n, prices(3n, 2n))).to.equal(null);
  });

  it('values surplus as CIP-38: buy-order surplus through the limit price into the buy token', () => {
    const oneWeth = order(4, {
      sellToken: WETH,
      buyToken: DUSD,
      sellAmount: E18,
      buyAmount: 2900n * E18,
    });
    // Got 3000 DUSD where 2900 were asked: 100 DUSD at 1/3000 WETH each.
    expect(nativeSurplus(oneWeth, { sell: E18, buy: 3000n * E18 }, devnetPrices)).to.equal(
      (100n * E18 * (E18 / 3000n)) / E18,
    );
    const big = order(3, {
      sellToken: WETH,
      buyToken: DUSD,
      sellAmount: E18,
      buyAmount: 2000n * E18,
      kind: 'buy',
    });
    // Paid 0.5 WETH where 1 was allowed: 0.5 WETH = 1000 DUSD at the limit = 1/3 WETH natively.
    expect(nativeSurplus(big, { sell: E18 / 2n, buy: 2000n * E18 }, devnetPrices)).to.equal(
      (1000n * E18 * (E18 / 3000n)) / E18,
    );
  });

  it('counts gas per trade and per pool', () => {
    expect(settlementGas(1, 0)).to.equal(SETTLEMENT_SINGLE_TRADE_GAS);
    expect(settlementGas(2, 1) > settlementGas(1, 1)).to.equal(true);
  });

  it('finds a settlement short of a token, or a swap the pair refuses', () => {
    const orders = new Map([[sell.uid, sell]]);
    const pools = new Map([[devnetPool.address, devnetPool]]);
    const short: Solution = {
      clearingPrices: prices(3n, 2n),
      trades: [{ uid: sell.uid, executedAmount: 10n }],
      swaps: [],
      gas: 0n,
    };
    expect(checkSolution(short, orders, pools)).to.match(/15 atoms of .* short/);
    const greedy: Solution = {
      ...short,
      swaps: [
        {
          pool: devnetPool.address,
          tokenIn: WETH,
          tokenOut: DUSD,
          amountIn: 10n,
          amountOut: 30_000n,
        },
      ],
    };
    // 10 atoms of WETH buy 29,909 atoms of DUSD from the pool (just under 997 · 10 · 3000 / 1000).
    expect(checkSolution(greedy, orders, pools)).to.match(/gives at most 29909 /);
  });

  it('refuses a swap whose input the contract does not hold yet when it runs', () => {
    // A buy order of 29,909 DUSD paying up to 12 WETH: its WETH goes through the pool. Swapped
    // first, the DUSD → WETH swap would send DUSD the contract only gets from the swap after it.
    const dusdBuyer = order(5, {
      sellToken: WETH,
      buyToken: DUSD,
      sellAmount: 12n,
      buyAmount: 29_909n,
      kind: 'buy',
    });
    const orders = new Map([[dusdBuyer.uid, dusdBuyer]]);
    const pools = new Map([[devnetPool.address, devnetPool]]);
    const wethIn = {
      pool: devnetPool.address,
      tokenIn: WETH,
      tokenOut: DUSD,
      amountIn: 10n,
      amountOut: 29_909n,
    };
    const solution: Solution = {
      clearingPrices: prices(29_909n, 10n),
      trades: [{ uid: dusdBuyer.uid, executedAmount: 29_909n }],
      swaps: [wethIn],
      gas: 0n,
    };
    expect(checkSolution(solution, orders, pools)).to.equal(null);
    const dusdFirst: Solution = {
      ...solution,
      swaps: [
        {
          pool: devnetPool.address,
          tokenIn: DUSD,
          tokenOut: WETH,
          amountIn: 3_000n,
          amountOut: 0n,
        },
        wethIn,
      ],
    };
    expect(checkSolution(dusdFirst, orders, pools)).to.match(/swapping 3000 of .* holds 0/);
  });
});
