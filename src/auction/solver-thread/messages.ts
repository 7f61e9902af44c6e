/**
 * What the service thread and the solver thread tell each other. Only structured-clonable
 * values cross: the solver engine API's `Auction` and answers (bigints and Maps survive).
 */
import type { BuiltinSolverParams } from '../builtin-solver.js';
import type { Auction, SolverAnswer } from '../solver-api/types.js';

export type ToSolverThread = {
  type: 'solve';
  /** Names the answer: one thread serves every network's auctions and quotes. */
  id: number;
  solver: BuiltinSolverParams;
  auction: Auction;
};

export type FromSolverThread =
  /** Its modules are loaded: what it is sent now is solved at once. */
  | { type: 'ready' }
  | { type: 'answer'; id: number; answer: SolverAnswer }
  /** The solver threw: that auction gets no answer from it, the thread serves on. */
  | { type: 'failed'; id: number; message: string };
