/**
 * The infrastructure the chain room is given rather than builds (DESIGN.md §2): only the
 * composition root imports src/postgres, and passes its leader locks and pooled transactions in.
 */
import type pg from 'pg';

/** A role's lock name, in the two-key form (namespace, name). */
export type LeaderKey = readonly [namespace: string, name: string];

/** One request for a role's leader lock: one instance across processes holds it. */
export interface Leadership {
  /** Resolves once this instance holds the lock; rejects if its session fails first. */
  readonly acquired: Promise<void>;
  /** True while this instance holds the lock. */
  readonly held: boolean;
  /** Gives the lock up, or abandons the wait for it. */
  release(): Promise<void>;
}

/** Asks for `key`'s lock; `onLost` is called once if the lock, once held, is lost. */
export type RequestLeadership = (key: LeaderKey, onLost: (err: unknown) => void) => Leadership;

/** Runs `work` in one transaction on a connection of `pool`: committed if it resolves. */
export type InTransaction = (
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<void>,
) => Promise<void>;
