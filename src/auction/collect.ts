/**
 * Asking every solver of a round at once (reference §6, competition step 1): each answers by the
 * auction's deadline or is left out; one solver failing never holds up or sinks the others.
 */
import type { Auction, SolverAnswer } from './solver-api/types.js';
import { SolverFailure, type Solver } from './solver.js';

export type SolverOutcome = { answer: SolverAnswer } | { failure: SolverFailure };

/** Each solver's outcome, in the order of `solvers`. */
export async function askSolvers(
  solvers: readonly Solver[],
  auction: Auction,
  /** Until `auction.deadline` on the autopilot's clock: the timer needs it in real time. */
  timeoutMs: number,
): Promise<SolverOutcome[]> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const answers = await Promise.allSettled(
    solvers.map((solver) => solver.solve(auction, deadline)),
  );
  return answers.map((answer, i) => {
    if (answer.status === 'fulfilled') return { answer: answer.value };
    const { reason } = answer;
    if (reason instanceof SolverFailure) return { failure: reason };
    // A solver in process that throws: a defect of its own, kept from the others.
    const solver = solvers[i]!.name;
    const kind = deadline.aborted ? 'timeout' : 'error';
    return {
      failure: new SolverFailure(solver, kind, `failed: ${String(reason)}`, { cause: reason }),
    };
  });
}
