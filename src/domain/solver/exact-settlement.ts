/**
 * From the optimizer's answer to a priced program (`priced-program.ts`) to a settlement the
 * contract executes to the atom: fills in whole atoms (fill-or-kill orders whole), one swap per
 * pool sized on its curve, then whatever the rounding left short taken back from the trades
 * paying the token out, and the swaps put in an order in which each has its input at hand.
 */
import { amountOut, hopThrough, type Pool } from '../amm.js';
import type { Address, OrderUid } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import { executedAmounts, remaining, type ExecutedTrade } from '../trade-execution.js';
import {
  checkSolution,
  heldBeforeInteractions,
  settlementGas,
  tokenBalances,
} from './execution.js';
import type { PoolLeg, PricedProgram } from './priced-program.js';
import type { Solution, Swap } from './types.js';

/** Fixed-point bits of the optimizer's shares when they scale amounts in atoms. */
const SHARE_BITS = 40n;
const SHARE_ONE = 2 ** Number(SHARE_BITS);

/** `amount · share`, rounded down, for a share in [0, 1]. */
function scaled(amount: bigint, share: number): bigint {
  const clamped = share <= 0 ? 0 : share >= 1 ? 1 : share;
  return (amount * BigInt(Math.floor(clamped * SHARE_ONE))) >> SHARE_BITS;
}

export interface ExactContext {
  orders: ReadonlyMap<OrderUid, OrderTerms>;
  pools: ReadonlyMap<Address, Pool>;
  slippageBps: bigint;
  maxGas: bigint;
}

/** What a leg's shares add up to as an input to its pool, in atoms. */
function legInput(leg: PoolLeg, values: Float64Array): bigint {
  return leg.columns.reduce(
    (total, column, k) => total + scaled(leg.inputs[k + 1]! - leg.inputs[k]!, values[column]!),
    0n,
  );
}

/** The swap of `amountIn` through the leg's pool, sized as the solver sizes swaps; null if none. */
function legSwap(leg: PoolLeg, amountIn: bigint, context: ExactContext): Swap | null {
  if (amountIn <= 0n) return null;
  const hop = hopThrough(context.pools.get(leg.pool)!, leg.tokenIn, context.slippageBps);
  const out = amountOut(amountIn, hop.reserveIn, hop.reserveOut);
  if (out === null || out <= 0n) return null;
  return { pool: leg.pool, tokenIn: leg.tokenIn, tokenOut: leg.tokenOut, amountIn, amountOut: out };
}

/**
 * The settlement the answer `values` describes at `prices`, made exact; null when none with a
 * trade is left or it would break a rule of the contract.
 */
export function exactSettlement(
  priced: PricedProgram,
  values: Float64Array,
  prices: ReadonlyMap<Address, bigint>,
  context: ExactContext,
): Solution | null {
  const trades = new Map<OrderUid, bigint>();
  for (const { order, column } of priced.orders) {
    const share = values[column]!;
    const amount = order.partiallyFillable
      ? scaled(remaining(order), share)
      : share > 0.5
        ? remaining(order)
        : 0n;
    if (amount > 0n) trades.set(order.uid, amount);
  }
  // One direction per pool: the program has no reason to swap both ways, but may by a hair.
  const byPool = new Map<Address, { leg: PoolLeg; swap: Swap }>();
  for (const leg of priced.legs) {
    const swap = legSwap(leg, legInput(leg, values), context);
    const other = swap && byPool.get(leg.pool);
    if (swap === null || (other && other.swap.amountIn >= swap.amountIn)) continue;
    byPool.set(leg.pool, { leg, swap });
  }
  const swaps = new Map([...byPool].map(([pool, { swap }]) => [pool, swap]));
  const legs = new Map([...byPool].map(([pool, { leg }]) => [pool, leg]));
  const build = (): Solution => {
    const tradeList: ExecutedTrade[] = [...trades].map(([uid, executedAmount]) => ({
      uid,
      executedAmount,
    }));
    const tokens = new Set(
      tradeList.flatMap(({ uid }) => {
        const order = context.orders.get(uid)!;
        return [order.sellToken, order.buyToken];
      }),
    );
    const swapList = [...swaps.values()];
    return {
      clearingPrices: new Map([...tokens].map((token) => [token, prices.get(token)!])),
      trades: tradeList,
      swaps: swapList,
      gas: settlementGas(tradeList.length, swapList.length),
    };
  };
  // Each round takes back what one token is short of; every round shrinks a trade or a swap.
  for (let round = 0; round < 4 * (trades.size + swaps.size) + 4; round++) {
    const balances = tokenBalances(build(), context.orders);
    if (balances === null) return null;
    const short = [...balances].find(([, balance]) => balance < 0n);
    if (short === undefined) break;
    const [token, balance] = short;
    if (!takeBack(token, -balance, trades, swaps, legs, prices, context)) return null;
  }
  if (trades.size === 0) return null;
  const solution = build();
  const ordered = inOrder(solution, context.orders);
  if (ordered === null) return null;
  const exact = { ...solution, swaps: ordered };
  if (exact.gas > context.maxGas) return null;
  return checkSolution(exact, context.orders, context.pools) === null ? exact : null;
}

/**
 * Takes `deficit` atoms of `token` back: from a partially fillable trade paying it out (the
 * largest), else from a swap taking it in, else by dropping a fill-or-kill trade paying it out.
 * False when nothing pays it out or takes it in.
 */
function takeBack(
  token: Address,
  deficit: bigint,
  trades: Map<OrderUid, bigint>,
  swaps: Map<Address, Swap>,
  legs: ReadonlyMap<Address, PoolLeg>,
  prices: ReadonlyMap<Address, bigint>,
  context: ExactContext,
): boolean {
  const paying = [...trades]
    .map(([uid, amount]) => ({ order: context.orders.get(uid)!, amount }))
    .filter(({ order }) => order.buyToken === token);
  const payout = ({ order, amount }: { order: OrderTerms; amount: bigint }) =>
    executedAmounts(order, amount, prices)?.buy ?? 0n;
  const partial = paying
    .filter(({ order }) => order.partiallyFillable)
    .sort((p, q) => (payout(q) > payout(p) ? 1 : payout(q) < payout(p) ? -1 : 0))[0];
  if (partial !== undefined) {
    const { order, amount } = partial;
    const [ps, pb] = [prices.get(order.sellToken)!, prices.get(order.buyToken)!];
    // A sell order's payout falls by p[sell]/p[buy] per atom sold less; a buy order's by one.
    const less = order.kind === 'sell' ? (deficit * pb) / ps + 1n : deficit;
    if (amount > less) trades.set(order.uid, amount - less);
    else trades.delete(order.uid);
    return true;
  }
  const taking = [...swaps.values()].find((swap) => swap.tokenIn === token);
  if (taking !== undefined) {
    const resized = legSwap(legs.get(taking.pool)!, taking.amountIn - deficit, context);
    if (resized === null) swaps.delete(taking.pool);
    else swaps.set(taking.pool, resized);
    return true;
  }
  const whole = paying.sort((p, q) => (payout(p) < payout(q) ? -1 : 1))[0];
  if (whole === undefined) return false;
  trades.delete(whole.order.uid);
  return true;
}

/**
 * The swaps in an order the contract can run them in: the trades' sell amounts are in before
 * the interactions, and each swap needs its input at hand when it runs. Null when none exists.
 */
function inOrder(solution: Solution, orders: ReadonlyMap<OrderUid, OrderTerms>): Swap[] | null {
  const held = heldBeforeInteractions(solution, orders);
  if (held === null) return null;
  const left = [...solution.swaps];
  const ordered: Swap[] = [];
  while (left.length > 0) {
    const next = left.findIndex((swap) => (held.get(swap.tokenIn) ?? 0n) >= swap.amountIn);
    if (next < 0) return null;
    const [swap] = left.splice(next, 1) as [Swap];
    held.set(swap.tokenIn, held.get(swap.tokenIn)! - swap.amountIn);
    held.set(swap.tokenOut, (held.get(swap.tokenOut) ?? 0n) + swap.amountOut);
    ordered.push(swap);
  }
  return ordered;
}
