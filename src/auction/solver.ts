/**
 * What every solver answers to, in process or over HTTP (DESIGN §7): one round of an auction,
 * and the solutions it proposes before the round's deadline.
 */
import type { Address, AuctionOrder } from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import type { ProposedSolution, SolverAuction } from '../domain/solver/types.js';

export interface SolverRound {
  network: Network;
  auctionId: number;
  block: number;
  /** Solutions that arrive later are not taken. */
  deadline: Date;
  /** The auction's orders as `GET /api/v1/auction` serves them. */
  orders: readonly AuctionOrder[];
  /** Native price of each traded token, 1e18-scaled decimal strings. */
  prices: Readonly<Record<Address, string>>;
  /** The same auction in the solver's terms: remaining amounts, native prices, pools. */
  auction: SolverAuction;
}

export interface Solver {
  /** Configured name, shown in the competition ("builtin" for the one in process). */
  name: string;
  /** The address the solver competes as. */
  address: Address;
  /**
   * The solver's solutions for the round. Rejects when it cannot answer (unreachable, a bad
   * answer, past the deadline, `signal` aborted): the competition goes on without it.
   */
  solve(round: SolverRound, signal: AbortSignal): Promise<ProposedSolution[]>;
}
