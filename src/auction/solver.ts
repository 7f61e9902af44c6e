/**
 * What every solver answers to, in process or over HTTP (DESIGN §7): the published solver engine
 * API's `Auction` in, its solutions out, and feedback on what became of them. The built-in
 * solver and an external engine are asked, and judged, the same way.
 */
import type { Address } from '../domain/events.js';
import type { Auction, Notification, SolverAnswer } from './solver-api/types.js';

export interface Solver {
  /** Configured name, shown in the competition ("builtin" for the one in process). */
  name: string;
  /** The address the solver competes as. */
  address: Address;
  /** Whether `POST /quote` asks it to price a trade too. */
  quotes: boolean;
  /**
   * The solver's answer to `auction`, by `auction.deadline`. Rejects with a `SolverFailure` when
   * it gives none (unreachable, too late, an answer that cannot be read, `signal` aborted).
   */
  solve(auction: Auction, signal: AbortSignal): Promise<SolverAnswer>;
  /** Tells the solver what became of its solutions; never waited for, never throws. */
  notify(notification: Notification): void;
}

/** Why a solver gave no answer this round; `timeout`: none by the deadline. */
export class SolverFailure extends Error {
  constructor(
    readonly solver: string,
    readonly kind: 'timeout' | 'error',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`solver ${solver} ${message}`, options);
    this.name = 'SolverFailure';
  }
}
