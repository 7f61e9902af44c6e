/**
 * Every command's way with the ledger: read the stream, decide with the domain, append at the
 * revision read (DESIGN.md §3). When another write got there first, the append's expected
 * revision no longer holds and nothing was written: the command decides again on what is there
 * now. Each round one of the contenders wins, so this many requests at once on one stream all get
 * their answer; a stream busier than that answers the last conflict.
 */
import { WrongExpectedRevisionError } from '../ledger/port.js';

export const CONFLICT_ATTEMPTS = 8;

/** Runs `decideAndAppend` (`attempt` counts from 1) again while a concurrent write wins. */
export async function decideAgainOnConflict<T>(
  decideAndAppend: (attempt: number) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await decideAndAppend(attempt);
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt === CONFLICT_ATTEMPTS) {
        throw error;
      }
    }
  }
}
