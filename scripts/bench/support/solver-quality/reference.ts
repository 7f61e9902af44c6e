/**
 * The best uniform-price settlement the bench can find for an auction, to compare solvers with:
 * at each price vector tried, HiGHS solves the settlement program exactly (fill-or-kill orders
 * whole or nothing, pools on their exact curves without slippage, amounts as real numbers, the
 * gas cap) and its optimum is that price vector's best score; the price vectors come from the
 * solvers' own solutions and the market, then move one token at a time in shrinking steps while
 * the optimum rises. Every price vector's optimum is a settlement that exists, so the result is
 * a lower bound on the best uniform-price settlement; `bound.ts` gives an upper bound.
 */
import { solvable } from '../../../../src/domain/solver/execution.js';
import type { ProgramSolver } from '../../../../src/domain/solver/linear-program.js';
import { pricesOf, type PriceFactors } from '../../../../src/domain/solver/price-search.js';
import { pricedProgram, programInputs } from '../../../../src/domain/solver/priced-program.js';
import type { SolverAuction } from '../../../../src/domain/solver/types.js';
import type { Address } from '../../../../src/domain/events.js';

const STEPS = [0.01, 0.003, 0.001, 0.0003, 0.0001];

export interface Reference {
  score: number;
  factors: PriceFactors;
  programs: number;
}

/** The CIP-38 score of the best settlement at `factors`, in native tokens. */
function optimumAt(
  auction: SolverAuction,
  factors: PriceFactors,
  solver: ProgramSolver,
  maxGas: bigint,
): number {
  const orders = auction.orders.filter((o) => solvable(o, auction.nativePrices));
  const tokens = new Set(orders.flatMap((o) => [o.sellToken, o.buyToken]));
  const inputs = programInputs(orders, auction.pools, auction.nativePrices, 0n, maxGas);
  const prices = pricesOf(factors, auction.nativePrices, tokens);
  const priced = pricedProgram(inputs, prices, factors);
  const answer = priced.orders.length > 0 ? solver(priced.program) : null;
  if (answer === null) return 0;
  // The orders' surplus alone: the program's small charge on swaps is not part of the score.
  const { columns } = priced.program;
  return priced.orders.reduce(
    (s, { column }) => s + columns[column]!.gain * answer.values[column]!,
    0,
  );
}

export function bestUniformSettlement(
  auction: SolverAuction,
  starts: readonly PriceFactors[],
  solver: ProgramSolver,
  maxGas: bigint,
  programs: number,
): Reference {
  let spent = 0;
  const at = (factors: PriceFactors) => {
    spent++;
    return { factors, score: optimumAt(auction, factors, solver, maxGas) };
  };
  let best = starts.map(at).reduce((p, q) => (q.score > p.score ? q : p));
  const tokens = [...new Set(auction.orders.flatMap((o) => [o.sellToken, o.buyToken]))].filter(
    (token: Address) => token !== auction.wrappedNative,
  );
  for (const step of STEPS) {
    let moved = true;
    while (moved && spent < programs) {
      moved = false;
      for (const token of tokens) {
        for (const direction of [1, -1]) {
          if (spent >= programs) break;
          const factors = new Map(best.factors);
          factors.set(token, (factors.get(token) ?? 1) * (1 + direction * step));
          const found = at(factors);
          if (found.score <= best.score) continue;
          best = found;
          moved = true;
          break;
        }
      }
    }
  }
  return { ...best, programs: spent };
}
