/**
 * Asking every solver of a round at once (reference §6, competition step 1): each answers by the
 * round's deadline or is left out; one solver failing never holds up or sinks the others.
 */
import type { Logger } from 'pino';
import type { ProposedSolution } from '../domain/solver/types.js';
import type { Solver, SolverRound } from './solver.js';

export async function collectSolutions(
  solvers: readonly Solver[],
  round: SolverRound,
  /** Until `round.deadline` on the autopilot's clock: the timer needs it in real time. */
  timeoutMs: number,
  logger: Logger,
): Promise<ProposedSolution[]> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const answers = await Promise.allSettled(solvers.map((solver) => solver.solve(round, deadline)));
  return answers.flatMap((answer, i) => {
    if (answer.status === 'fulfilled') return answer.value;
    const solver = solvers[i]!.name;
    logger.warn({ solver, auction: round.auctionId, err: answer.reason }, 'solver gave no answer');
    return [];
  });
}
