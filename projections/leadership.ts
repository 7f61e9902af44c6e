/**
 * The leader lock a projector worker runs under (one active instance per projector, DESIGN.md
 * §5), as the projections are given it: only the composition root imports src/postgres, and
 * passes its advisory-lock sessions in.
 */

/** One request for a projector's lock. */
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
export type RequestLeadership = (
  key: readonly [namespace: string, name: string],
  onLost: (err: unknown) => void,
) => Leadership;
