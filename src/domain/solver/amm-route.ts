/**
 * Trading through Uniswap-V2 pools: one order alone along its best route, or all the orders of a
 * pair at one price with only their net through the pools (a coincidence of wants whose
 * remainder the pools take).
 *
 * The contract holds no inventory, so what the settlement pays out of a token must come in from
 * the trades or from the swaps. An order alone trades at its own execution ratio: at prices
 * `p[sell] = out`, `p[buy] = in` it gets exactly what the route gives. A pair's orders share a
 * price set a hair below the pools' rate, so the pools' output covers every trade's rounding.
 */
import {
  amountInAlong,
  amountOutAlong,
  bestBuyRoute,
  bestSellRoute,
  candidatePaths,
  routesAlong,
  sortTokens,
  type Pool,
  type Route,
} from '../amm.js';
import type { Address } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import {
  executedAmounts,
  remaining,
  respectsLimit,
  type ExecutedTrade,
} from '../trade-execution.js';
import { gcd, settlementGas } from './execution.js';
import type { Proposal, Solution, Swap } from './types.js';

const pairKey = (a: Address, b: Address) => sortTokens(a, b).join('/');

/** The pools of each token pair, for looking routes up. */
export function poolsByPair(pools: readonly Pool[]): Map<string, Pool[]> {
  const index = new Map<string, Pool[]>();
  for (const pool of pools) {
    const key = pairKey(pool.token0, pool.token1);
    const pair = index.get(key);
    if (pair === undefined) index.set(key, [pool]);
    else pair.push(pool);
  }
  return index;
}

/** Every route from `sell` to `buy`: direct, and through the hub token; hops with `slippageBps`. */
export function routesBetween(
  sell: Address,
  buy: Address,
  pools: ReadonlyMap<string, readonly Pool[]>,
  hub: Address,
  slippageBps: bigint,
): Route[] {
  return candidatePaths(sell, buy, hub).flatMap((path) =>
    routesAlong(
      path,
      path.slice(1).map((token, i) => [...(pools.get(pairKey(path[i]!, token)) ?? [])]),
      slippageBps,
    ),
  );
}

/** The swaps of `route` where `amounts[i]` goes into hop i and `amounts[i + 1]` comes out. */
function swapsAlong(route: Route, amounts: readonly bigint[]): Swap[] {
  return route.hops.map((hop, i) => ({
    pool: hop.pool,
    tokenIn: route.path[i]!,
    tokenOut: route.path[i + 1]!,
    amountIn: amounts[i]!,
    amountOut: amounts[i + 1]!,
  }));
}

/** The swaps selling `amountIn` along `route`, each hop's output into the next; null if a hop refuses. */
function sellSwaps(route: Route, amountIn: bigint): Swap[] | null {
  const amounts = [amountIn];
  for (const hop of route.hops) {
    const out = amountOutAlong(amounts[amounts.length - 1]!, [hop]);
    // A pair refuses a swap with no output (INSUFFICIENT_OUTPUT_AMOUNT).
    if (out === null || out === 0n) return null;
    amounts.push(out);
  }
  return swapsAlong(route, amounts);
}

/** The swaps buying `amountOut` at the end of `route`, each hop asked for what the next needs. */
function buySwaps(route: Route, amountOut: bigint): Swap[] | null {
  const amounts = [amountOut];
  for (let i = route.hops.length - 1; i >= 0; i--) {
    const needed = amountInAlong(amounts[0]!, [route.hops[i]!]);
    if (needed === null) return null;
    amounts.unshift(needed);
  }
  return swapsAlong(route, amounts);
}

/**
 * The amount in [1, max] where `value` peaks, by ternary search. `value` is a surplus: zero at
 * zero, rising then falling (a pool's marginal rate only worsens with the amount); null counts
 * as below everything.
 */
function peak(max: bigint, value: (amount: bigint) => bigint | null): bigint {
  const above = (a: bigint, b: bigint) => {
    const [va, vb] = [value(a), value(b)];
    return va !== null && (vb === null || va > vb);
  };
  const step = (max >> 20n) + 1n;
  // Most orders are small beside the pools: still rising at `max`, the peak is `max` itself.
  if (value(max) !== null && !above(max - step, max)) return max;
  // Not above zero a step in, it never is: the surplus per atom only falls.
  const first = value(step);
  if (first === null || first <= 0n) return step;
  let [low, high] = [1n, max];
  while (high - low > 2n) {
    const third = (high - low) / 3n;
    if (above(low + third, high - third)) high = high - third - 1n;
    else low = low + third + 1n;
  }
  let best = low;
  for (let a = low + 1n; a <= high; a++) if (above(a, best)) best = a;
  return best;
}

function pairPrices(a: Address, pa: bigint, b: Address, pb: bigint): Map<Address, bigint> {
  const common = gcd(pa, pb);
  return new Map([
    [a, pa / common],
    [b, pb / common],
  ]);
}

/**
 * `order` alone through its best route: fill-or-kill orders in full, partially fillable ones by
 * the amount that earns the most surplus (where the pools' marginal rate meets the limit; up to
 * what is left). Filling further, to where the average rate meets the limit, would only add
 * trades worth nothing to the trader, and a fill at no surplus scores zero. Null when nothing can
 * be filled at the limit.
 */
export function routeOrder(order: OrderTerms, routes: readonly Route[]): Proposal | null {
  const left = remaining(order);
  if (left <= 0n || routes.length === 0) return null;
  // What the pools trade for `amount` (sold for sell orders, bought for buy orders), and the
  // surplus over the limit in units of sell × buy atoms: `sellAmount · out − buyAmount · in`,
  // non-negative exactly when the contract's limit check passes at the trade's own ratio.
  const quote = (amount: bigint) => {
    const best =
      order.kind === 'sell' ? bestSellRoute(routes, amount) : bestBuyRoute(routes, amount);
    if (best === null) return null;
    const [sold, bought] = order.kind === 'sell' ? [amount, best.amount] : [best.amount, amount];
    return { ...best, sold, bought, surplus: order.sellAmount * bought - order.buyAmount * sold };
  };
  const amount = order.partiallyFillable ? peak(left, (a) => quote(a)?.surplus ?? null) : left;
  const best = quote(amount);
  if (best === null || best.surplus < 0n) return null;
  const swaps =
    order.kind === 'sell' ? sellSwaps(best.route, best.sold) : buySwaps(best.route, best.bought);
  if (swaps === null) return null;
  const trade: ExecutedTrade = { uid: order.uid, executedAmount: amount };
  // The trade keeps its amounts at any prices; it stays sound while the owner gets no more
  // than the pools give (sell orders) or pays no less than they take (buy orders).
  const reprice = (prices: ReadonlyMap<Address, bigint>): Solution | null => {
    const executed = executedAmounts(order, amount, prices);
    if (executed === null || executed.buy > best.bought || executed.sell < best.sold) return null;
    return {
      clearingPrices: new Map([
        [order.sellToken, prices.get(order.sellToken)!],
        [order.buyToken, prices.get(order.buyToken)!],
      ]),
      trades: [trade],
      swaps,
      gas: settlementGas(1, swaps.length),
    };
  };
  const solution = reprice(pairPrices(order.sellToken, best.bought, order.buyToken, best.sold));
  return solution === null ? null : { solution, reprice };
}

/** The pair's orders at prices `p`, all filled as far as they can, the net through the pools. */
function netAt(
  orders: readonly OrderTerms[],
  x: Address,
  y: Address,
  routes: ReadonlyMap<Address, readonly Route[]>,
  prices: ReadonlyMap<Address, bigint>,
): Solution | null {
  const trades: ExecutedTrade[] = [];
  const net = new Map<Address, bigint>([
    [x, 0n],
    [y, 0n],
  ]);
  for (const order of orders) {
    const executedAmount = remaining(order);
    const executed = executedAmounts(order, executedAmount, prices);
    if (executed === null) return null;
    trades.push({ uid: order.uid, executedAmount });
    net.set(order.sellToken, net.get(order.sellToken)! + executed.sell);
    net.set(order.buyToken, net.get(order.buyToken)! - executed.buy);
  }
  let swaps: Swap[] = [];
  const [nx, ny] = [net.get(x)!, net.get(y)!];
  if (nx < 0n || ny < 0n) {
    // The token the trades leave over is sold, all of it, for the one they are short of.
    const [over, shortBy] = nx < 0n ? [y, -nx] : [x, -ny];
    const surplus = net.get(over)!;
    const best = surplus > 0n ? bestSellRoute(routes.get(over)!, surplus) : null;
    const sold = best === null || best.amount < shortBy ? null : sellSwaps(best.route, surplus);
    if (sold === null) return null;
    swaps = sold;
  }
  return {
    clearingPrices: new Map([
      [x, prices.get(x)!],
      [y, prices.get(y)!],
    ]),
    trades,
    swaps,
    gas: settlementGas(trades.length, swaps.length),
  };
}

/**
 * The rate (`o` atoms per `e` atom, as out / in) at which the pair's orders, all filled, leave
 * exactly the `e` the pools sell at that rate: sell `r`, get `out(r)`, and at the price
 * `out(r) / r` the orders' net of `e` is `r`. Found by bisection on `r`, on sums: at price π the
 * net is `S + B/π − T/π − E` (what `e` sellers sell or pay, less what `e` buyers get). Null
 * when the orders leave no `e` over even at the pools' best rate.
 */
function poolRate(
  orders: readonly OrderTerms[],
  e: Address,
  routes: readonly Route[],
): { out: bigint; in: bigint } | null {
  let [fixedNet, scaledNet, cap] = [0n, 0n, 0n];
  for (const order of orders) {
    const left = remaining(order);
    const sellsE = order.sellToken === e;
    // Sell orders of e and buy orders of e fix their e; the others fix their o, worth o/π of e.
    const fixesE = sellsE === (order.kind === 'sell');
    if (fixesE) fixedNet += sellsE ? left : -left;
    else scaledNet += sellsE ? left : -left;
    if (sellsE)
      cap += order.kind === 'sell' ? left : (left * order.sellAmount) / order.buyAmount + 1n;
  }
  // φ(r)·out(r) = (fixedNet − r)·out(r) + scaledNet·r: positive while the orders leave more than r.
  const ahead = (r: bigint) => {
    const out = bestSellRoute(routes, r)?.amount;
    return out === undefined ? null : (fixedNet - r) * out + scaledNet * r > 0n;
  };
  let low = 1n;
  while (low <= cap && ahead(low) !== true) low *= 2n;
  if (low > cap) return null;
  let high = low * 2n;
  while (ahead(high) === true) {
    // Past what the e sellers could pay at their limits, the rate is beyond every limit.
    if (high > cap) return null;
    high *= 2n;
  }
  while (high - low > 1n) {
    const mid = (low + high) / 2n;
    if (ahead(mid) === true) low = mid;
    else high = mid;
  }
  const out = bestSellRoute(routes, low)?.amount;
  return out === undefined ? null : { out, in: low };
}

/** Fixed-point bits of the price cut below the pools' rate, and the cuts tried (2^-40 … 2^-4). */
const CUT_BITS = 40n;
const CUTS = [0n, 4n, 8n, 12n, 16n, 20n, 24n, 28n, 32n, 36n].map((bits) => 1n << bits);
/** Rounds of dropping the orders whose limit the price misses before giving up. */
const MAX_ROUNDS = 8;

/**
 * All the orders of the pair {e, o} that the pools' rate can satisfy, at one price, with the `e`
 * they leave over sold through the pools. Orders whose limit misses the price are dropped and the
 * price found again.
 */
function netThroughPools(
  orders: readonly OrderTerms[],
  e: Address,
  o: Address,
  routes: ReadonlyMap<Address, readonly Route[]>,
  nativePrices: ReadonlyMap<Address, bigint>,
): Proposal | null {
  const [ne, no] = [nativePrices.get(e), nativePrices.get(o)];
  if (ne === undefined || no === undefined) return null;
  const market = new Map([
    [e, ne],
    [o, no],
  ]);
  // Start from the orders in the market: one far out of it would only skew the first price.
  let included = orders.filter((order) =>
    respectsLimit(order, market.get(order.sellToken)!, market.get(order.buyToken)!),
  );
  rounds: for (let round = 0; round < MAX_ROUNDS; round++) {
    if (!included.some((order) => order.sellToken === e)) return null;
    const rate = poolRate(included, e, routes.get(e)!);
    if (rate === null) return null;
    const pair = included;
    const reprice = (prices: ReadonlyMap<Address, bigint>) => netAt(pair, e, o, routes, prices);
    for (const cut of CUTS) {
      const prices = pairPrices(e, rate.out * ((1n << CUT_BITS) - cut), o, rate.in << CUT_BITS);
      const missing = new Set(
        pair.filter(
          (order) =>
            !respectsLimit(order, prices.get(order.sellToken)!, prices.get(order.buyToken)!),
        ),
      );
      if (missing.size > 0) {
        included = pair.filter((order) => !missing.has(order));
        continue rounds;
      }
      const solution = reprice(prices);
      if (solution !== null) return { solution, reprice };
    }
    return null;
  }
  return null;
}

/**
 * The pair {x, y}'s orders at one price with their net through the pools (along `routes`, from
 * each token), one proposal for each token the orders may leave over.
 */
export function routePair(
  orders: readonly OrderTerms[],
  x: Address,
  y: Address,
  routes: ReadonlyMap<Address, readonly Route[]>,
  nativePrices: ReadonlyMap<Address, bigint>,
): Proposal[] {
  return [
    netThroughPools(orders, x, y, routes, nativePrices),
    netThroughPools(orders, y, x, routes, nativePrices),
  ].filter((p): p is Proposal => p !== null);
}
