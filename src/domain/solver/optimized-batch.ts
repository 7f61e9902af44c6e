/**
 * The whole auction as one settlement at one price vector, found with an optimizer: the orders
 * the market's prices could reach, every pool, the fill-or-kill orders whole or not at all, and
 * the prices searched (`price-search.ts`) from the market's and from the solutions the
 * pair-by-pair solver found.
 */
import type { OrderUid } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import { MAX_SETTLEMENT_GAS, solvable } from './execution.js';
import type { ProgramSolver } from './linear-program.js';
import { factorsOf, searchPrices, type PriceFactors, type SearchEffort } from './price-search.js';
import { programInputs, type ProgramOrder } from './priced-program.js';
import type { Solution, SolveOptions, SolverAuction } from './types.js';

/**
 * Programs a search solves: measured on the solver-quality bench, more relaxed ones than this
 * found little more, and the exact ones are the settlement's own cost.
 */
export const OPTIMIZER_EFFORT: SearchEffort = { relaxed: 150, exact: 6 };

/**
 * Orders a program takes at most: about three settlements' worth of trades under the gas cap,
 * so that the program chooses among them while it stays small enough to solve quickly.
 */
const PROGRAM_ORDERS = 400;

/** How far beyond the market a limit may ask and still be in reach of the searched prices. */
const REACH = 1.05;

/**
 * The orders a program works with: those the market's prices moved by at most `REACH` could
 * trade, the most surplus in sight first (their worth at the market times the room their limit
 * leaves), at most `PROGRAM_ORDERS`.
 */
function inReach(orders: readonly ProgramOrder[]): ProgramOrder[] {
  return orders
    .filter(({ limit }) => limit <= REACH)
    .map((o) => ({ o, promise: o.worth * (REACH - o.limit) }))
    .sort((p, q) => q.promise - p.promise || (p.o.order.uid < q.o.order.uid ? -1 : 1))
    .slice(0, PROGRAM_ORDERS)
    .map(({ o }) => o);
}

/**
 * The best settlement of the whole auction the search finds from the market's prices and from
 * those of `found` (solutions found otherwise), or null when none trades.
 */
export function optimizedBatch(
  auction: SolverAuction,
  options: SolveOptions,
  solver: ProgramSolver,
  found: readonly Solution[],
  effort: SearchEffort = OPTIMIZER_EFFORT,
): Solution | null {
  const all = programInputs(
    auction.orders.filter((order) => solvable(order, auction.nativePrices)),
    auction.pools,
    auction.nativePrices,
    options.slippageBps,
    MAX_SETTLEMENT_GAS,
  );
  const program = { ...all, orders: inReach(all.orders) };
  if (program.orders.length === 0) return null;
  const context = {
    orders: new Map<OrderUid, OrderTerms>(auction.orders.map((o) => [o.uid, o])),
    pools: new Map(auction.pools.map((pool) => [pool.address, pool])),
    slippageBps: options.slippageBps,
    maxGas: MAX_SETTLEMENT_GAS,
  };
  const starts: PriceFactors[] = [
    new Map(),
    ...found.map((solution) => factorsOf(solution, auction.nativePrices)),
  ];
  const best = searchPrices(
    { program, nativePrices: auction.nativePrices, context, solver },
    starts,
    effort,
  );
  return best?.solution ?? null;
}
