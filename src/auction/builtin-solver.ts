/**
 * The built-in solver behind the same interface as external ones: src/domain/solver's `solve`,
 * run in process, with its pool swaps turned into the calls the settlement makes.
 */
import type { Address } from '../domain/events.js';
import { solve } from '../domain/solver/solve.js';
import type { Solver } from './solver.js';
import { swapInteractions } from './swap-interactions.js';

export const BUILTIN_SOLVER_NAME = 'builtin';

/** `address`: the account the built-in solver competes as, the driver's. */
export function createBuiltinSolver(address: Address): Solver {
  return {
    name: BUILTIN_SOLVER_NAME,
    address,
    // Synchronous inside: the round waits for it whatever the deadline (about 0.2 s for 1,000
    // orders; see BENCHMARKS.md).
    solve: async (round) =>
      solve(round.auction).map((solution) => ({
        solver: BUILTIN_SOLVER_NAME,
        solverAddress: address,
        clearingPrices: solution.clearingPrices,
        trades: solution.trades,
        interactions: swapInteractions(
          solution.swaps,
          round.auction.pools,
          round.network.settlementContract,
        ),
      })),
  };
}
