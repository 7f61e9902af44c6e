/**
 * One active instance of a role that writes to the ledger or follows it (a projector, a
 * network's chain indexer, its autopilot), across processes: the lock the roles ask for. Only
 * the composition root knows how it is held (src/postgres/leadership.ts) and passes
 * `RequestLeadership` in.
 */

/** A role's lock name, in the two-key form (namespace, name). */
export type LeaderKey = readonly [namespace: string, name: string];

/** One request for a role's lock. */
export interface Leadership {
  /** Resolves once this instance holds the lock; rejects if its session fails first. */
  readonly acquired: Promise<void>;
  /** True while this instance holds the lock. */
  readonly held: boolean;
  /** True once the session is gone, and the lock with it. */
  readonly lost: boolean;
  /** Gives the lock up, or abandons the wait for it. */
  release(): Promise<void>;
}

/** Asks for `key`'s lock; `onLost` is called once if the lock, once held, is lost. */
export type RequestLeadership = (key: LeaderKey, onLost: (err: unknown) => void) => Leadership;
