/**
 * The best settlement at one price vector, as a mixed-integer program. At fixed uniform prices
 * every order's trade is linear in how much of it fills: a sell order selling `x` receives
 * `x · p[sell] / p[buy]`, a buy order buying `y` pays `y · p[buy] / p[sell]`, and its CIP-38
 * surplus is linear too. What must hold is that the contract, holding nothing of its own, pays
 * out no more of a token than the trades and the pools bring in; the pools' curves enter as
 * chords between points on them (concave, so any mix of chords stays under the curve and every
 * point the program picks is one the pool gives). Fill-or-kill orders fill whole or not at all;
 * when the gas cap could bind, every trade and every pool used counts against it.
 *
 * Amounts are stated in native tokens (1e18 native atoms), so that the optimizer's tolerances
 * mean the same for every token.
 */
import { POOL_HOP_GAS, amountOut, hopThrough, type Pool } from '../amm.js';
import type { Address } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import { remaining, respectsLimit } from '../trade-execution.js';
import { TRADE_GAS, settlementGas } from './execution.js';
import { ProgramBuilder, type LinearProgram } from './linear-program.js';

const E18 = 10n ** 18n;

/** Native tokens worth `atoms` of a token whose native price is `price`. */
export function nativeValue(atoms: bigint, price: bigint): number {
  return Number((atoms * price) / E18) / 1e18;
}

/**
 * Inputs at which a pool's curve is sampled, as shares of its reserve in: doubling from one in
 * a million to a half. Between two of them the chord's rate stays within ~0.03 % of the curve's
 * for trades up to 5 % of the reserve.
 */
const CURVE_SHARES = Array.from({ length: 20 }, (_, i) => 2 ** i / 1_000_000).filter(
  (share) => share <= 0.5,
);

/**
 * What a route costs, in native tokens per native token moved through a pool, so that the
 * program never swaps what it does not need: far below any surplus it could earn.
 */
const SWAP_PENALTY = 1e-7;

/**
 * The share of each token paid out that the contract keeps over: it covers the optimizer's
 * tolerances, the integer prices' rounding against the market's and whole atoms, far beyond
 * each (~1e-15 of an amount, one atom per transfer) for ordinary tokens. A share of what is paid
 * out rather than a fixed amount, so that trading nothing stays feasible; what it misses (an
 * atom worth more than a millionth of a trade) is taken back exactly (`exact-settlement.ts`).
 */
const RESERVE_SHARE = 1e-6;

/** One direction of a pool: points of its curve, in atoms and in native tokens. */
export interface PoolCurve {
  pool: Address;
  tokenIn: Address;
  tokenOut: Address;
  /** Inputs (increasing, from 0) and the pool's outputs for them (sized with slippage). */
  inputs: readonly bigint[];
  outputs: readonly bigint[];
  /** Per segment between two points: what goes in and what comes out, in native tokens. */
  segments: readonly { in: number; out: number }[];
}

/** A pool's curve as a program takes it: its columns, one per segment, the share used. */
export interface PoolLeg extends PoolCurve {
  columns: readonly number[];
}

/** An order with what the program needs of it at any prices, worked out once. */
export interface ProgramOrder {
  order: OrderTerms;
  /** What is left of it in native tokens at the market: of its sell token (sell orders) or buy token. */
  worth: number;
  /** What its limit asks against the market: buy-token value per sell-token value. */
  limit: number;
}

export interface PricedProgram {
  program: LinearProgram;
  /** The orders the program may trade, and each one's column: the share of what is left. */
  orders: readonly { order: OrderTerms; column: number }[];
  legs: readonly PoolLeg[];
}

/** What every program of one auction shares: its orders and pool curves, worked out once. */
export interface ProgramInputs {
  orders: readonly ProgramOrder[];
  curves: readonly PoolCurve[];
  maxGas: bigint;
}

export function programInputs(
  orders: readonly OrderTerms[],
  pools: readonly Pool[],
  nativePrices: ReadonlyMap<Address, bigint>,
  slippageBps: bigint,
  maxGas: bigint,
): ProgramInputs {
  const valued = orders.flatMap((order): ProgramOrder[] => {
    const [sellPrice, buyPrice] = [
      nativePrices.get(order.sellToken),
      nativePrices.get(order.buyToken),
    ];
    const left = remaining(order);
    if (sellPrice === undefined || buyPrice === undefined || left <= 0n) return [];
    const limit = nativeValue(order.buyAmount, buyPrice) / nativeValue(order.sellAmount, sellPrice);
    const worth = nativeValue(left, order.kind === 'sell' ? sellPrice : buyPrice);
    // Orders worth less than a native atom, or beyond what a float can price, are no program's.
    if (!(worth > 0 && Number.isFinite(worth) && limit > 0 && Number.isFinite(limit))) return [];
    return [{ order, worth, limit }];
  });
  const curves = pools.flatMap((pool) =>
    [pool.token0, pool.token1].flatMap(
      (tokenIn) => poolCurve(pool, tokenIn, slippageBps, nativePrices) ?? [],
    ),
  );
  return { orders: valued, curves, maxGas };
}

/**
 * The program of the best settlement of `inputs` at `prices` (every traded token priced; the
 * market's times `factors`), keeping a little of each token paid out over for the rounding.
 * Orders whose limit the prices miss are left out.
 */
export function pricedProgram(
  inputs: ProgramInputs,
  prices: ReadonlyMap<Address, bigint>,
  factors: ReadonlyMap<Address, number>,
): PricedProgram {
  const builder = new ProgramBuilder();
  const balance = new Map<Address, [number, number][]>();
  const flow = (token: Address, column: number, amount: number) => {
    const terms = balance.get(token);
    if (terms === undefined) balance.set(token, [[column, amount]]);
    else terms.push([column, amount]);
  };
  const orders: { order: OrderTerms; column: number }[] = [];
  for (const { order, worth, limit } of inputs.orders) {
    const [ps, pb] = [prices.get(order.sellToken), prices.get(order.buyToken)];
    if (ps === undefined || pb === undefined || !respectsLimit(order, ps, pb)) continue;
    // Buy-token value per sell-token value at these prices.
    const rate = (factors.get(order.sellToken) ?? 1) / (factors.get(order.buyToken) ?? 1);
    const [sold, bought] = order.kind === 'sell' ? [worth, worth * rate] : [worth / rate, worth];
    const column = builder.column(bought - sold * limit, 0, 1, !order.partiallyFillable);
    flow(order.sellToken, column, sold);
    flow(order.buyToken, column, -bought);
    orders.push({ order, column });
  }
  const traded = new Set(orders.flatMap(({ order }) => [order.sellToken, order.buyToken]));
  const legs: PoolLeg[] = [];
  for (const curve of inputs.curves) {
    if (!traded.has(curve.tokenIn) || !traded.has(curve.tokenOut)) continue;
    const columns = curve.segments.map((segment) => {
      const column = builder.column(-SWAP_PENALTY * segment.in, 0, 1);
      flow(curve.tokenIn, column, -segment.in);
      flow(curve.tokenOut, column, segment.out);
      return column;
    });
    legs.push({ ...curve, columns });
  }
  for (const terms of balance.values()) {
    builder.row(
      0,
      Infinity,
      terms.map(([column, amount]) => [column, amount < 0 ? amount * (1 + RESERVE_SHARE) : amount]),
    );
  }
  gasLimit(builder, orders, legs, inputs.maxGas);
  return { program: builder.program(), orders, legs };
}

/** The pool from `tokenIn`, its curve cut into chords; null when it has nothing to give. */
function poolCurve(
  pool: Pool,
  tokenIn: Address,
  slippageBps: bigint,
  nativePrices: ReadonlyMap<Address, bigint>,
): PoolCurve | null {
  const hop = hopThrough(pool, tokenIn, slippageBps);
  const tokenOut = tokenIn === pool.token0 ? pool.token1 : pool.token0;
  const [inPrice, outPrice] = [nativePrices.get(tokenIn), nativePrices.get(tokenOut)];
  if (inPrice === undefined || outPrice === undefined) return null;
  const inputs = [0n];
  const outputs = [0n];
  for (const share of CURVE_SHARES) {
    const input = (hop.reserveIn * BigInt(Math.round(share * 1_000_000))) / 1_000_000n;
    const output = amountOut(input, hop.reserveIn, hop.reserveOut);
    if (output === null || output <= outputs.at(-1)! || input <= inputs.at(-1)!) continue;
    inputs.push(input);
    outputs.push(output);
  }
  if (inputs.length < 2) return null;
  const segments = inputs.slice(1).map((input, k) => ({
    in: nativeValue(input - inputs[k]!, inPrice),
    out: nativeValue(outputs[k + 1]! - outputs[k]!, outPrice),
  }));
  return { pool: pool.address, tokenIn, tokenOut, inputs, outputs, segments };
}

/**
 * When the gas cap could bind, the trades and the pools used must fit under it: each order
 * that trades at all and each pool swapped through counts once.
 */
function gasLimit(
  builder: ProgramBuilder,
  orders: readonly { order: OrderTerms; column: number }[],
  legs: readonly PoolLeg[],
  maxGas: bigint,
): void {
  const pools = new Set(legs.map((leg) => leg.pool));
  if (settlementGas(orders.length, pools.size) <= maxGas) return;
  const budget = Number(maxGas - settlementGas(1, 0) + TRADE_GAS);
  const terms: [number, number][] = [];
  for (const { order, column } of orders) {
    if (!order.partiallyFillable) {
      terms.push([column, Number(TRADE_GAS)]);
      continue;
    }
    const trades = builder.column(0, 0, 1, true);
    builder.row(-Infinity, 0, [
      [column, 1],
      [trades, -1],
    ]);
    terms.push([trades, Number(TRADE_GAS)]);
  }
  for (const pool of pools) {
    const used = builder.column(0, 0, 1, true);
    const poolLegs = legs.filter((leg) => leg.pool === pool);
    const segments = poolLegs.flatMap((leg) => leg.columns);
    builder.row(-Infinity, 0, [
      ...segments.map((c): [number, number] => [c, 1]),
      [used, -segments.length],
    ]);
    // Redundant for whole values, but it makes a relaxation count a pool whose first segment
    // is used in full as used in full, not by a sliver of its segments.
    for (const leg of poolLegs) {
      builder.row(-Infinity, 0, [
        [leg.columns[0]!, 1],
        [used, -1],
      ]);
    }
    terms.push([used, Number(POOL_HOP_GAS)]);
  }
  builder.row(-Infinity, budget, terms);
}
