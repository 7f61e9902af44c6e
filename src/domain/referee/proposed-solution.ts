/**
 * What the referee judges: a solution as it enters the competition, from any solver (the
 * built-in one in process, external ones over HTTP), and the auction it answers. Only prices
 * and trades decide a solution's score; the interactions are what the settlement runs around
 * the trades, carried to the ranking unread.
 */
import type { Address, Interaction } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import type { FeeTrade } from '../trade-execution.js';

/** The calls a settlement makes before the transfers in, between them and the transfers out, and after. */
export interface SettlementCalls {
  pre: readonly Interaction[];
  intra: readonly Interaction[];
  post: readonly Interaction[];
}

export interface ProposedSolution {
  /** The solver's configured name ("builtin" for the one in process). */
  solver: string;
  solverAddress: Address;
  /** The solver's own id of the solution: what its feedback names. */
  solutionId: number;
  /** One price per traded token: each trade executes at `prices[sell] / prices[buy]`. */
  clearingPrices: ReadonlyMap<Address, bigint>;
  trades: readonly FeeTrade[];
  calls: SettlementCalls;
}

/** The auction as the referee sees it: the orders solutions may trade, and how to value surplus. */
export interface RefereeAuction {
  orders: readonly OrderTerms[];
  /** Native value of one token atom × 1e18. */
  nativePrices: ReadonlyMap<Address, bigint>;
  /** The native-token marker trades as this token (the fairness filter's pairs). */
  wrappedNative: Address;
}
