/**
 * What each projector has yet to apply: the ledger's events after its checkpoint (counted up to
 * a cap) and when the first of them was recorded. Readiness and `/metrics` read it.
 */
import type { Backlog, Ledger } from './ledger/port.js';
import type { ProjectionThreadEngine } from './projection-thread/thread.js';

/** The most events a projector's backlog counts: enough to tell "far behind". */
export const BACKLOG_CAP = 1_000;

/**
 * Each projector's backlog. Projectors mostly share a checkpoint (they follow the same ledger
 * and pass over what they do not handle): the ledger is asked once per distinct one.
 */
export function projectorBacklogs(
  ledger: Pick<Ledger, 'backlog'>,
  projections: Pick<ProjectionThreadEngine, 'checkpoint'>,
  projectors: readonly string[],
): Map<string, Promise<Backlog>> {
  const byCheckpoint = new Map<string | null, Promise<Backlog>>();
  return new Map(
    projectors.map((name) => {
      const checkpoint = projections.checkpoint(name);
      let backlog = byCheckpoint.get(checkpoint);
      if (!backlog)
        byCheckpoint.set(checkpoint, (backlog = ledger.backlog(checkpoint, BACKLOG_CAP)));
      return [name, backlog];
    }),
  );
}

/** Seconds since the first unapplied event was recorded; 0 when there is none. */
export function backlogSeconds(backlog: Backlog, now: number): number {
  return backlog.oldest === null ? 0 : Math.max(0, (now - backlog.oldest.getTime()) / 1000);
}
