/**
 * What GPv2Settlement does with one of the built-in solver's solutions, to the atom: its trades
 * (`trade-execution.ts`), the pools' answers to its swaps, what the contract is left with per
 * token, and its gas. A solution the contract would revert, or that would leave it short of a
 * token (it holds no inventory of its own), is invalid.
 */
import { POOL_HOP_GAS, SETTLEMENT_SINGLE_TRADE_GAS, amountOut, type Pool } from '../amm.js';
import type { Address, OrderUid } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import { checkTrades, executedAmounts, remaining } from '../trade-execution.js';
import type { Solution } from './types.js';

/** Greatest common divisor: prices only matter as ratios, and reduced ones keep the products small. */
export function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** Orders the solver can work with: something left, two different tokens, both priced. */
export function solvable(order: OrderTerms, nativePrices: ReadonlyMap<Address, bigint>): boolean {
  return (
    order.sellToken !== order.buyToken &&
    order.sellAmount > 0n &&
    order.buyAmount > 0n &&
    remaining(order) > 0n &&
    (nativePrices.get(order.sellToken) ?? 0n) > 0n &&
    (nativePrices.get(order.buyToken) ?? 0n) > 0n
  );
}

/**
 * The most gas one solution may need: half of a 30M block, so that a network includes it. A
 * batch stops taking proposals at this size, and a pair offers only as many orders as fit.
 */
export const MAX_SETTLEMENT_GAS = 15_000_000n;

/** Gas of one trade in a settlement: `computeTradeExecution` plus the transfer in and the transfer out. */
export const TRADE_GAS = 44_000n + 2n * 27_513n;

/**
 * A settlement's gas: the single-trade figure, one more trade's worth for every further trade,
 * and each pool swapped through. The transaction, solver check and refunds are paid once.
 */
export function settlementGas(trades: number, hops: number): bigint {
  return (
    SETTLEMENT_SINGLE_TRADE_GAS +
    BigInt(Math.max(trades - 1, 0)) * TRADE_GAS +
    BigInt(hops) * POOL_HOP_GAS
  );
}

/**
 * What the settlement contract gains (positive) or owes (negative) per token: the trades' sell
 * amounts come in, their buy amounts go out, each swap takes its input and yields its output.
 * Null when a trade would revert.
 */
export function tokenBalances(
  solution: Solution,
  orders: ReadonlyMap<OrderUid, OrderTerms>,
): Map<Address, bigint> | null {
  const balances = new Map<Address, bigint>();
  const add = (token: Address, amount: bigint) =>
    balances.set(token, (balances.get(token) ?? 0n) + amount);
  for (const trade of solution.trades) {
    const order = orders.get(trade.uid);
    if (order === undefined) return null;
    const executed = executedAmounts(order, trade.executedAmount, solution.clearingPrices);
    if (executed === null) return null;
    add(order.sellToken, executed.sell);
    add(order.buyToken, -executed.buy);
  }
  for (const swap of solution.swaps) {
    add(swap.tokenIn, -swap.amountIn);
    add(swap.tokenOut, swap.amountOut);
  }
  return balances;
}

/**
 * What the contract holds per token when the interactions start: the trades' sell amounts, all
 * transferred in before them. Null when a trade would revert.
 */
export function heldBeforeInteractions(
  solution: Solution,
  orders: ReadonlyMap<OrderUid, OrderTerms>,
): Map<Address, bigint> | null {
  const held = new Map<Address, bigint>();
  for (const trade of solution.trades) {
    const order = orders.get(trade.uid);
    const executed = order && executedAmounts(order, trade.executedAmount, solution.clearingPrices);
    if (!order || !executed) return null;
    held.set(order.sellToken, (held.get(order.sellToken) ?? 0n) + executed.sell);
  }
  return held;
}

/**
 * Why the settlement of `solution` would fail or break a rule, or null when it is sound: every
 * trade is an auction order, once, executing something and respecting its limit and remaining
 * amount (fill-or-kill ones their full amount); every swap is one the pair accepts, in order,
 * from the reserves the earlier swaps left, its input at hand when it runs; no token ends
 * below zero.
 */
export function checkSolution(
  solution: Solution,
  orders: ReadonlyMap<OrderUid, OrderTerms>,
  pools: ReadonlyMap<Address, Pool>,
): string | null {
  const trades = checkTrades(solution.trades, orders);
  if (trades !== null) return trades;
  // Each swap sends the pair what the contract holds by then, or the transfer reverts.
  const held = heldBeforeInteractions(solution, orders);
  if (held === null) return 'a trade would revert';
  const reserves = new Map<Address, Pool>();
  for (const swap of solution.swaps) {
    const before = held.get(swap.tokenIn) ?? 0n;
    if (before < swap.amountIn) {
      return `swapping ${swap.amountIn} of ${swap.tokenIn} when the contract holds ${before}`;
    }
    held.set(swap.tokenIn, before - swap.amountIn);
    held.set(swap.tokenOut, (held.get(swap.tokenOut) ?? 0n) + swap.amountOut);
    const pool = reserves.get(swap.pool) ?? pools.get(swap.pool);
    if (pool === undefined) return `pool ${swap.pool} is unknown`;
    const forward = swap.tokenIn === pool.token0 && swap.tokenOut === pool.token1;
    if (!forward && !(swap.tokenIn === pool.token1 && swap.tokenOut === pool.token0)) {
      return `pool ${swap.pool} does not trade ${swap.tokenIn} for ${swap.tokenOut}`;
    }
    const [reserveIn, reserveOut] = forward
      ? [pool.reserve0, pool.reserve1]
      : [pool.reserve1, pool.reserve0];
    const possible = amountOut(swap.amountIn, reserveIn, reserveOut);
    if (possible === null || swap.amountOut <= 0n || swap.amountOut > possible) {
      return `pool ${swap.pool} gives at most ${possible} for ${swap.amountIn}, not ${swap.amountOut}`;
    }
    const inAfter = reserveIn + swap.amountIn;
    const outAfter = reserveOut - swap.amountOut;
    reserves.set(swap.pool, {
      ...pool,
      reserve0: forward ? inAfter : outAfter,
      reserve1: forward ? outAfter : inAfter,
    });
  }
  const balances = tokenBalances(solution, orders);
  if (balances === null) return 'a trade would revert';
  for (const [token, balance] of balances) {
    if (balance < 0n) return `the settlement would be ${-balance} atoms of ${token} short`;
  }
  return null;
}
