/**
 * Uniswap-V2 constant-product pools: the swap arithmetic exactly as `UniswapV2Library` computes
 * it on chain (0.3% fee, integer division, SafeMath overflow is a revert), the routes between two
 * tokens, the best route for a sell or a buy, and the gas a route costs in a settlement.
 */
import { MAX_UINT256 } from './amounts.js';
import type { Address } from './events.js';

/** Of every 1000 atoms paid in, 997 count toward the swap: the 0.3% fee stays in the pool. */
const FEE_KEPT = 997n;
const FEE_BASE = 1000n;
/** The same fee as the solver engine API writes it: the share of each input the pool keeps. */
export const UNISWAP_V2_FEE = '0.003';

/**
 * The gas of a settlement with one trade and no interaction: CoW Protocol's
 * `SETTLEMENT_SINGLE_TRADE` (cowprotocol/services, crates/shared/src/price_estimation/gas.rs):
 * 32,000 transaction + 7,365 isSolver + 44,000 for the trade (computeTradeExecutions 35,000,
 * transfer-in and transfer-out overhead 2 × 3,000, one interaction 3,000) + 2 × 27,513 for the
 * ERC-20 transfers in from the owner and out to the receiver (the median `transfer()` cost of the
 * most traded tokens) − 13,000 of refunds.
 */
export const SETTLEMENT_SINGLE_TRADE_GAS = 125_391n;

/**
 * The gas of one pool on the route, as the reference's baseline price estimator counts it
 * (`estimate_gas` in crates/shared/src/price_estimation/baseline.rs): two ERC-20 transfers (into
 * the pair, out of it) of 27,513 each plus 40,000 for the pair's own `swap` (reading the
 * reserves and balances, the k check, the reserves and price accumulators update).
 */
export const POOL_HOP_GAS = 2n * 27_513n + 40_000n;

/** A pair as read from chain: token0 < token1 (by address), reserves in that order. */
export interface Pool {
  address: Address;
  token0: Address;
  token1: Address;
  reserve0: bigint;
  reserve1: bigint;
}

/** A pool seen from the token going in. */
export interface Hop {
  pool: Address;
  reserveIn: bigint;
  reserveOut: bigint;
}

/** Tokens from sell to buy, and the pool between each two of them (`hops.length = path.length − 1`). */
export interface Route {
  path: readonly Address[];
  hops: readonly Hop[];
}

/** A route with what it gives: the buy amount out of a sell, the sell amount into a buy. */
export interface RouteQuote {
  route: Route;
  amount: bigint;
  gas: bigint;
}

/** `getAmountOut`: what `amountIn` buys; null where the library reverts. May be 0. */
export function amountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint | null {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return null;
  const inWithFee = amountIn * FEE_KEPT;
  const numerator = inWithFee * reserveOut;
  const denominator = reserveIn * FEE_BASE + inWithFee;
  if (numerator > MAX_UINT256 || denominator > MAX_UINT256) return null;
  return numerator / denominator;
}

/**
 * `getAmountIn`: what must go in for `amountOut` to come out, rounded up by one atom in the
 * pool's favour as the library does; null where it reverts (nothing to buy, no liquidity, or the
 * pool's whole reserve or more asked for).
 */
export function amountIn(amountOut: bigint, reserveIn: bigint, reserveOut: bigint): bigint | null {
  if (amountOut <= 0n || reserveIn <= 0n || reserveOut <= amountOut) return null;
  const numerator = reserveIn * amountOut * FEE_BASE;
  if (numerator > MAX_UINT256) return null;
  return numerator / ((reserveOut - amountOut) * FEE_KEPT) + 1n;
}

/** `getAmountsOut`'s last amount: each hop's output goes into the next. */
export function amountOutAlong(amountIn: bigint, hops: readonly Hop[]): bigint | null {
  let amount: bigint | null = amountIn;
  for (const hop of hops) {
    if (amount === null) return null;
    amount = amountOut(amount, hop.reserveIn, hop.reserveOut);
  }
  return amount;
}

/** `getAmountsIn`'s first amount: from the last hop backwards, each input is the previous output. */
export function amountInAlong(amountOut: bigint, hops: readonly Hop[]): bigint | null {
  let amount: bigint | null = amountOut;
  for (let i = hops.length - 1; i >= 0; i--) {
    if (amount === null) return null;
    const hop = hops[i]!;
    amount = amountIn(amount, hop.reserveIn, hop.reserveOut);
  }
  return amount;
}

/** The gas of a trade settled along `hops` pools. */
export function routeGas(hops: number): bigint {
  return SETTLEMENT_SINGLE_TRADE_GAS + BigInt(hops) * POOL_HOP_GAS;
}

/** Token addresses in the same case compare as the pair contract orders them. */
export function sortTokens(a: Address, b: Address): [Address, Address] {
  return a < b ? [a, b] : [b, a];
}

/** Basis points: 10,000 is the whole. */
const BPS = 10_000n;

/**
 * `pool` traversed from `tokenIn` to its other token. With `slippageBps`, the reserve going out
 * is counted that much smaller: every quote along the hop gives that much less out (the output
 * is linear in it) and asks more in, so a swap sized on it still passes the pair's k check after
 * the pool moved against it by up to about that much.
 */
export function hopThrough(pool: Pool, tokenIn: Address, slippageBps = 0n): Hop {
  const [reserveIn, reserveOut] =
    tokenIn === pool.token0 ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0];
  return { pool: pool.address, reserveIn, reserveOut: (reserveOut * (BPS - slippageBps)) / BPS };
}

/** Direct, and through the base token (the wrapped native token) unless it is one of the two. */
export function candidatePaths(sell: Address, buy: Address, base: Address): Address[][] {
  if (sell === buy) return [];
  const direct = [sell, buy];
  return sell === base || buy === base ? [direct] : [direct, [sell, base, buy]];
}

/**
 * Every route along `path`: one per choice of pool at each hop (several factories may each have
 * a pool for the same two tokens), each hop with `slippageBps` (see `hopThrough`). None when a
 * hop has no pool.
 */
export function routesAlong(
  path: readonly Address[],
  poolsPerHop: readonly Pool[][],
  slippageBps = 0n,
): Route[] {
  let routes: Hop[][] = [[]];
  for (const [i, pools] of poolsPerHop.entries()) {
    const tokenIn = path[i]!;
    routes = routes.flatMap((hops) =>
      pools.map((pool) => [...hops, hopThrough(pool, tokenIn, slippageBps)]),
    );
  }
  return routes.map((hops) => ({ path, hops }));
}

/**
 * The route whose amount `better` prefers; on a tie the one with fewer pools, which costs less
 * gas. Null when no route can trade the amount.
 */
function best(
  routes: readonly Route[],
  amountOf: (route: Route) => bigint | null,
  better: (a: bigint, b: bigint) => boolean,
): RouteQuote | null {
  let chosen: RouteQuote | null = null;
  for (const route of routes) {
    const amount = amountOf(route);
    if (amount === null) continue;
    const gas = routeGas(route.hops.length);
    if (
      chosen === null ||
      better(amount, chosen.amount) ||
      (amount === chosen.amount && gas < chosen.gas)
    )
      chosen = { route, amount, gas };
  }
  return chosen;
}

/**
 * The route giving the most for `sellAmount`. A route giving nothing is none: a pair refuses a
 * swap with no output (`INSUFFICIENT_OUTPUT_AMOUNT`).
 */
export function bestSellRoute(routes: readonly Route[], sellAmount: bigint): RouteQuote | null {
  return best(
    routes,
    (route) => {
      const out = amountOutAlong(sellAmount, route.hops);
      return out === null || out === 0n ? null : out;
    },
    (a, b) => a > b,
  );
}

/** The route asking the least for `buyAmount`. */
export function bestBuyRoute(routes: readonly Route[], buyAmount: bigint): RouteQuote | null {
  return best(
    routes,
    (route) => amountInAlong(buyAmount, route.hops),
    (a, b) => a < b,
  );
}
