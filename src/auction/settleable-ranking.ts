/**
 * The competition's winners, simulated before they are recorded (a reference driver simulates
 * every solution before it proposes one). A winner that would revert is dropped and the
 * competition runs again, so a runner-up may win in its place. The dropped winner's orders are
 * probed on the chain (`order-probe.ts`): those that cannot settle now leave this auction (the
 * autopilot records them as filtered, with why), and the in-process solver solves again without
 * them. One order its owner can no longer fund then
 * costs its own trade, not every batch it would be part of, auction after auction.
 */
import type { Logger } from 'pino';
import type { OrderUid, RankedSolution, SolutionOrder } from '../domain/events.js';
import { rankProposals } from '../domain/referee/competition.js';
import type { ProposedSolution, RefereeAuction } from '../domain/referee/proposed-solution.js';
import type { Revert } from './driver.js';
import { timedStep } from '../metrics/stage-timings.js';

/** Simulations of the winners per auction; the last ranking goes unchecked (the driver's own simulation still guards). */
export const CHECK_ROUNDS = 3;

export interface SettleChecks<Problem extends string = string> {
  /** Why `solution` would revert if sent now; null when it would not, or the node cannot tell. */
  wouldRevert(solution: RankedSolution): Promise<Revert | null>;
  /** Told of each winner dropped because it would revert. */
  dropped(proposed: ProposedSolution, revert: Revert): void;
  /** The orders among `trades` that cannot settle now, and why. */
  problems(trades: readonly SolutionOrder[]): Promise<ReadonlyMap<OrderUid, Problem>>;
  /** The solver that can be asked again at once (the in-process one), if any. */
  resolver: {
    name: string;
    /** Its solutions for the auction without the `excluded` orders. */
    solve(excluded: ReadonlySet<OrderUid>): Promise<ProposedSolution[]>;
  } | null;
}

const without = (
  auction: RefereeAuction,
  excluded: ReadonlyMap<OrderUid, unknown>,
): RefereeAuction =>
  excluded.size === 0
    ? auction
    : { ...auction, orders: auction.orders.filter((order) => !excluded.has(order.uid)) };

/** A ranking, and the orders left out of the auction because they cannot settle now. */
export interface SettleableRanking<Problem extends string> {
  solutions: RankedSolution[];
  excluded: ReadonlyMap<OrderUid, Problem>;
}

/** The ranking of `proposed` whose winners would settle, as far as `CHECK_ROUNDS` tells. */
export async function settleableRanking<Problem extends string>(
  auction: RefereeAuction,
  proposed: readonly ProposedSolution[],
  checks: SettleChecks<Problem>,
  logger: Logger,
): Promise<SettleableRanking<Problem>> {
  const excluded = new Map<OrderUid, Problem>();
  let proposals = [...proposed];
  for (let round = 1; ; round++) {
    const ranked = timedStep('auction: ranking', () =>
      rankProposals(without(auction, excluded), proposals),
    );
    const result = () => ({ solutions: ranked.map(({ solution }) => solution), excluded });
    if (round > CHECK_ROUNDS) return result();
    const winners = ranked.filter(({ solution }) => solution.isWinner);
    const verdicts = await Promise.all(winners.map(({ solution }) => checks.wouldRevert(solution)));
    const failing = winners.filter((_, i) => verdicts[i] !== null);
    if (failing.length === 0) return result();

    for (const [i, { solution, proposed }] of winners.entries()) {
      const revert = verdicts[i];
      if (!revert) continue;
      logger.warn(
        { solver: solution.solver, rank: solution.rank, detail: revert.reason },
        'winning solution would revert: dropped',
      );
      checks.dropped(proposed, revert);
    }
    const dropped = new Set(failing.map(({ proposed }) => proposed));
    proposals = proposals.filter((proposal) => !dropped.has(proposal));
    const problems = await checks.problems(failing.flatMap(({ solution }) => solution.orders));
    if (problems.size === 0) continue;
    for (const [uid, problem] of problems) {
      excluded.set(uid, problem);
      logger.warn({ uid, problem }, 'order cannot settle now: left out of this auction');
    }
    const { resolver } = checks;
    if (resolver !== null) {
      proposals = [
        ...proposals.filter((proposal) => proposal.solver !== resolver.name),
        ...(await resolver.solve(new Set(excluded.keys())).catch((err: unknown) => {
          logger.warn({ solver: resolver.name, err }, 'solver could not solve again');
          return [];
        })),
      ];
    }
  }
}
