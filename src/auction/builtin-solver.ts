/**
 * The built-in solver behind the same interface as external ones: src/domain/solver's `solve`,
 * run in process, with its pool swaps turned into the calls the settlement makes and orders
 * buying native ETH paid out by unwrapping (`native-payouts.ts`).
 */
import type { Address } from '../domain/events.js';
import { solve } from '../domain/solver/solve.js';
import type { SolveOptions } from '../domain/solver/types.js';
import type { Solver } from './solver.js';
import { erc20Auction } from './native-payouts.js';
import { swapInteractions } from './swap-interactions.js';

export const BUILTIN_SOLVER_NAME = 'builtin';

/** `address`: the account the built-in solver competes as, the driver's. */
export function createBuiltinSolver(address: Address, options: SolveOptions): Solver {
  return {
    name: BUILTIN_SOLVER_NAME,
    address,
    // Synchronous inside: the round waits for it whatever the deadline (about 0.2 s for 1,000
    // orders; see BENCHMARKS.md).
    solve: async (round) => {
      const { auction, payOut } = erc20Auction(round.auction);
      return solve(auction, options).map((solution) => {
        const { clearingPrices, unwrap } = payOut(solution);
        return {
          solver: BUILTIN_SOLVER_NAME,
          solverAddress: address,
          clearingPrices,
          trades: solution.trades,
          interactions: [
            ...swapInteractions(solution.swaps, auction.pools, round.network.settlementContract),
            ...unwrap,
          ],
        };
      });
    },
  };
}
