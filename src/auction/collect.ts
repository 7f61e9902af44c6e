/**
 * Asking every solver of a round at once (reference §6, competition step 1): each answers by the
 * auction's deadline or is left out; one solver failing never holds up or sinks the others.
 */
import { performance } from 'node:perf_hooks';
import type { Auction, SolverAnswer } from './solver-api/types.js';
import { SolverFailure, type Solver } from './solver.js';
import { timedStage } from '../metrics/stage-timings.js';

/** A solver's answer or why it gave none, and how long it took (`seconds`). */
export type SolverOutcome = ({ answer: SolverAnswer } | { failure: SolverFailure }) & {
  seconds: number;
};

/** Each solver's outcome, in the order of `solvers`. */
export async function askSolvers(
  solvers: readonly Solver[],
  auction: Auction,
  /** Until `auction.deadline` on the autopilot's clock: the timer needs it in real time. */
  timeoutMs: number,
): Promise<SolverOutcome[]> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const asked = performance.now();
  return Promise.all(
    solvers.map(async (solver): Promise<SolverOutcome> => {
      try {
        const answer = await timedStage(`auction: solver ${solver.name}`, () =>
          solver.solve(auction, deadline),
        );
        return { answer, seconds: since(asked) };
      } catch (reason) {
        const seconds = since(asked);
        if (reason instanceof SolverFailure) return { failure: reason, seconds };
        // A solver in process that throws: a defect of its own, kept from the others.
        const kind = deadline.aborted ? 'timeout' : 'error';
        const failure = new SolverFailure(solver.name, kind, `failed: ${String(reason)}`, {
          cause: reason,
        });
        return { failure, seconds };
      }
    }),
  );
}

const since = (began: number) => (performance.now() - began) / 1000;
