/**
 * A proven upper bound on the CIP-38 score of any settlement of an auction, uniform prices or
 * not: the same program as a settlement at fixed prices (`src/domain/solver/priced-program.ts`)
 * with every order free to trade at a price of its own within its limit. Uniform prices are
 * one more constraint, so the best uniform-price settlement scores at most this. Amounts are
 * real numbers (no rounding to atoms) and each pool's curve is bounded from above by its
 * tangents, which only widens what the program may do; fill-or-kill orders are whole or
 * nothing, and the gas cap counts every trade and every pool used. The bound is HiGHS's proven
 * dual bound, so a search cut short still gives one.
 */
import type { Pool } from '../../../../src/domain/amm.js';
import { POOL_HOP_GAS, hopThrough } from '../../../../src/domain/amm.js';
import type { Address } from '../../../../src/domain/events.js';
import { TRADE_GAS, settlementGas, solvable } from '../../../../src/domain/solver/execution.js';
import {
  ProgramBuilder,
  type ProgramSolver,
} from '../../../../src/domain/solver/linear-program.js';
import { nativeValue } from '../../../../src/domain/solver/priced-program.js';
import type { SolverAuction } from '../../../../src/domain/solver/types.js';
import { remaining } from '../../../../src/domain/trade-execution.js';

/** Inputs, as shares of the reserve in, at which each pool's curve gets a tangent. */
const TANGENT_SHARES = [0, ...Array.from({ length: 24 }, (_, i) => 2 ** i / 1_000_000)].filter(
  (share) => share <= 1,
);

/**
 * The pool's output for `input` (real numbers, in the pool's own units) and its slope there:
 * `997·x·R_out / (1000·R_in + 997·x)`.
 */
function curve(input: number, reserveIn: number, reserveOut: number): [number, number] {
  const denominator = 1000 * reserveIn + 997 * input;
  return [
    (997 * input * reserveOut) / denominator,
    (997_000 * reserveIn * reserveOut) / denominator ** 2,
  ];
}

export function scoreBound(auction: SolverAuction, solver: ProgramSolver, maxGas: bigint): number {
  const { nativePrices } = auction;
  const builder = new ProgramBuilder();
  const balance = new Map<Address, [number, number][]>();
  const flow = (token: Address, column: number, amount: number) => {
    const terms = balance.get(token) ?? [];
    terms.push([column, amount]);
    balance.set(token, terms);
  };
  const gas: [number, number][] = [];
  const orders = auction.orders.filter((o) => solvable(o, nativePrices));
  for (const order of orders) {
    const [sellPrice, buyPrice] = [
      nativePrices.get(order.sellToken)!,
      nativePrices.get(order.buyToken)!,
    ];
    // In native tokens at the market: what the order may sell, and what its limit asks per unit.
    const limit = nativeValue(order.buyAmount, buyPrice) / nativeValue(order.sellAmount, sellPrice);
    const left = remaining(order);
    const share = builder.column(0, 0, 1, !order.partiallyFillable);
    const sold = builder.column(-limit, 0, Infinity);
    const bought = builder.column(1, 0, Infinity);
    const full = order.kind === 'sell' ? nativeValue(left, sellPrice) : nativeValue(left, buyPrice);
    // The share fixes what the order counts (sold for sell orders, bought for buy orders)...
    builder.row(0, 0, [
      [order.kind === 'sell' ? sold : bought, 1],
      [share, -full],
    ]);
    // ...and the limit holds on the rest.
    builder.row(0, Infinity, [
      [bought, 1],
      [sold, -limit],
    ]);
    flow(order.sellToken, sold, 1);
    flow(order.buyToken, bought, -1);
    if (order.partiallyFillable) {
      const trades = builder.column(0, 0, 1, true);
      builder.row(-Infinity, 0, [
        [share, 1],
        [trades, -1],
      ]);
      gas.push([trades, Number(TRADE_GAS)]);
    } else gas.push([share, Number(TRADE_GAS)]);
  }
  for (const pool of auction.pools) poolTangents(builder, pool, nativePrices, flow, gas);
  for (const terms of balance.values()) builder.row(0, Infinity, terms);
  builder.row(-Infinity, Number(maxGas - settlementGas(1, 0) + TRADE_GAS), gas);
  const answer = solver(builder.program());
  return answer === null ? 0 : answer.bound;
}

/** Both directions of `pool`, each output under every tangent of its curve, in native tokens. */
function poolTangents(
  builder: ProgramBuilder,
  pool: Pool,
  nativePrices: ReadonlyMap<Address, bigint>,
  flow: (token: Address, column: number, amount: number) => void,
  gas: [number, number][],
): void {
  const used = builder.column(0, 0, 1, true);
  gas.push([used, Number(POOL_HOP_GAS)]);
  for (const tokenIn of [pool.token0, pool.token1]) {
    const hop = hopThrough(pool, tokenIn);
    const tokenOut = tokenIn === pool.token0 ? pool.token1 : pool.token0;
    const [inPrice, outPrice] = [nativePrices.get(tokenIn), nativePrices.get(tokenOut)];
    if (inPrice === undefined || outPrice === undefined) continue;
    const reserveIn = nativeValue(hop.reserveIn, inPrice);
    const reserveOut = nativeValue(hop.reserveOut, outPrice);
    const input = builder.column(0, 0, reserveIn);
    const output = builder.column(0, 0, reserveOut);
    flow(tokenIn, input, -1);
    flow(tokenOut, output, 1);
    builder.row(-Infinity, 0, [
      [input, 1],
      [used, -reserveIn],
    ]);
    for (const share of TANGENT_SHARES) {
      const at = share * reserveIn;
      const [value, slope] = curve(at, reserveIn, reserveOut);
      // output ≤ value + slope · (input − at)
      builder.row(-Infinity, value - slope * at, [
        [output, 1],
        [input, -slope],
      ]);
    }
  }
}
