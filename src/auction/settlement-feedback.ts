/**
 * What a solver is told of a winning solution once the driver knows its fate (the published
 * API's `success`, `revert` and `fail`): mined, mined and reverted, or not settled at all.
 */
import type { RankedSolution } from '../domain/events.js';
import type { SettlementOutcome } from './driver.js';
import type { Notification } from './solver-api/types.js';

export function settlementFeedback(
  auctionId: number,
  solution: RankedSolution,
  outcome: SettlementOutcome,
): Notification {
  const about = { auctionId: String(auctionId), solutionId: solution.solutionId };
  return outcome.kind === 'fail'
    ? { ...about, kind: 'fail' }
    : { ...about, kind: outcome.kind, transaction: outcome.txHash };
}
