/**
 * What GPv2Settlement does with a solution, to the atom: each trade's amounts at the uniform
 * clearing prices (`computeTradeExecution`), the pools' answers to the swaps, and what the
 * contract is left with per token. A solution the contract would revert, or that would leave it
 * short of a token (it holds no inventory of its own), is invalid.
 */
import { MAX_UINT256 } from '../amounts.js';
import { POOL_HOP_GAS, SETTLEMENT_SINGLE_TRADE_GAS, amountOut, type Pool } from '../amm.js';
import type { Address, OrderUid } from '../events.js';
import type { Solution, SolutionTrade, SolverOrder } from './types.js';

export interface Executed {
  /** Atoms taken from the owner. */
  sell: bigint;
  /** Atoms paid to the receiver. */
  buy: bigint;
}

/** SafeMath `mul`: null where the contract reverts on overflow. */
function mul(a: bigint, b: bigint): bigint | null {
  const product = a * b;
  return product > MAX_UINT256 ? null : product;
}

/** Greatest common divisor: prices only matter as ratios, and reduced ones keep the products small. */
export function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** What the contract counts fills in: sell atoms for sell orders, buy atoms for buy orders. */
export function fullAmount(order: SolverOrder): bigint {
  return order.kind === 'sell' ? order.sellAmount : order.buyAmount;
}

/**
 * What is left to execute, in the unit of `fullAmount`. A fill-or-kill order with any earlier
 * fill has nothing left: the contract would count its full amount again and refuse it.
 */
export function remaining(order: SolverOrder): bigint {
  const filled = order.kind === 'sell' ? order.executedSell : order.executedBuy;
  if (!order.partiallyFillable) return filled === 0n ? fullAmount(order) : 0n;
  const left = fullAmount(order) - filled;
  return left > 0n ? left : 0n;
}

/** Orders the solver can work with: something left, two different tokens, both priced. */
export function solvable(order: SolverOrder, nativePrices: ReadonlyMap<Address, bigint>): boolean {
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
 * The contract's limit check, on the signed amounts (not the executed ones):
 * `sellAmount · price[sell] ≥ buyAmount · price[buy]`. False where it would overflow.
 */
export function respectsLimit(order: SolverOrder, sellPrice: bigint, buyPrice: bigint): boolean {
  const offered = mul(order.sellAmount, sellPrice);
  const asked = mul(order.buyAmount, buyPrice);
  return offered !== null && asked !== null && offered >= asked;
}

/**
 * The amounts `computeTradeExecution` moves for a trade: a sell order receives
 * `⌈sold · price[sell] / price[buy]⌉`, a buy order pays `⌊bought · price[buy] / price[sell]⌋`
 * (both rounded in the trader's favour). Fill-or-kill orders execute their full amount whatever
 * `executedAmount` says. Null where the contract reverts: a missing or zero price, the limit
 * price not respected, an overflow, or a fill beyond the order's amount.
 */
export function executedAmounts(
  order: SolverOrder,
  executedAmount: bigint,
  prices: ReadonlyMap<Address, bigint>,
): Executed | null {
  const sellPrice = prices.get(order.sellToken) ?? 0n;
  const buyPrice = prices.get(order.buyToken) ?? 0n;
  if (sellPrice <= 0n || buyPrice <= 0n || !respectsLimit(order, sellPrice, buyPrice)) return null;
  const executed = order.partiallyFillable ? executedAmount : fullAmount(order);
  if (executed < 0n || executed > remaining(order)) return null;
  if (order.kind === 'sell') {
    const value = mul(executed, sellPrice);
    if (value === null) return null;
    return { sell: executed, buy: (value + buyPrice - 1n) / buyPrice };
  }
  const value = mul(executed, buyPrice);
  if (value === null) return null;
  return { sell: value / sellPrice, buy: executed };
}

/**
 * The trader's surplus over the limit price, in the surplus token (buy token of sell orders,
 * sell token of buy orders), rounded as the reference's scoring rounds it (reference §6,
 * winner-selection `surplus_over`): the limit amount scaled to the executed amount, up for
 * what a sell order must get, down for what a buy order may pay.
 */
export function surplus(order: SolverOrder, executed: Executed): bigint {
  if (order.kind === 'sell') {
    const limitBuy = (executed.sell * order.buyAmount + order.sellAmount - 1n) / order.sellAmount;
    return executed.buy - limitBuy;
  }
  return (executed.buy * order.sellAmount) / order.buyAmount - executed.sell;
}

/**
 * The surplus in native atoms, as CIP-38 scores it: a sell order's surplus is in its buy token;
 * a buy order's is first converted into its buy token at the order's own limit price. Null
 * without a native price for the buy token (the reference drops such a solution).
 */
export function nativeSurplus(
  order: SolverOrder,
  executed: Executed,
  nativePrices: ReadonlyMap<Address, bigint>,
): bigint | null {
  const price = nativePrices.get(order.buyToken);
  if (price === undefined) return null;
  const inSurplusToken = surplus(order, executed);
  const inBuyToken =
    order.kind === 'sell' ? inSurplusToken : (inSurplusToken * order.buyAmount) / order.sellAmount;
  return (inBuyToken * price) / 10n ** 18n;
}

/** Gas of one trade in a settlement: `computeTradeExecution` plus the transfer in and the transfer out. */
const TRADE_GAS = 44_000n + 2n * 27_513n;

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
  orders: ReadonlyMap<OrderUid, SolverOrder>,
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
 * Why a solution's trades break a rule, or null when they do not: every trade is an auction
 * order, once, executing something within its remaining amount (fill-or-kill ones exactly
 * their full amount). Prices and limits are `executedAmounts`' question.
 */
export function checkTrades(
  trades: readonly SolutionTrade[],
  orders: ReadonlyMap<OrderUid, SolverOrder>,
): string | null {
  if (trades.length === 0) return 'no trades';
  const seen = new Set<OrderUid>();
  for (const trade of trades) {
    const order = orders.get(trade.uid);
    if (order === undefined) return `order ${trade.uid} is not in the auction`;
    if (seen.has(trade.uid)) return `order ${trade.uid} traded twice`;
    seen.add(trade.uid);
    const left = remaining(order);
    const expected = order.partiallyFillable ? trade.executedAmount : left;
    if (left === 0n || trade.executedAmount !== expected || expected <= 0n) {
      return `order ${trade.uid} cannot execute ${trade.executedAmount}`;
    }
  }
  return null;
}

/**
 * Why the settlement of `solution` would fail or break a rule, or null when it is sound: every
 * trade is an auction order, once, executing something and respecting its limit and remaining
 * amount (fill-or-kill ones their full amount); every swap is one the pair accepts, in order,
 * from the reserves the earlier swaps left; no token ends below zero.
 */
export function checkSolution(
  solution: Solution,
  orders: ReadonlyMap<OrderUid, SolverOrder>,
  pools: ReadonlyMap<Address, Pool>,
): string | null {
  const trades = checkTrades(solution.trades, orders);
  if (trades !== null) return trades;
  const reserves = new Map<Address, Pool>();
  for (const swap of solution.swaps) {
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
