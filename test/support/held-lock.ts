/**
 * An advisory lock a test holds on a session of its own: statements that take it wait until the
 * test releases it. A test makes something last "long enough" this way (longer than a deadline,
 * until a failure elsewhere) and decides when it ends, on a condition, instead of sleeping.
 */
import pg from 'pg';

export interface HeldLock {
  /** A statement that waits until the lock is released, then takes it for its transaction. */
  readonly waitStatement: string;
  /** How long, in ms, the longest waiting session of the database has waited on a lock (0: none). */
  longestWait(): Promise<number>;
  /** How many sessions of the database wait on a lock now. */
  waiting(): Promise<number>;
  /** Sessions of the database at work: running a statement or inside a transaction, other than this one and those waiting on a lock. */
  othersAtWork(): Promise<number>;
  release(): Promise<void>;
  /** Releases it (if still held) and ends the session. */
  close(): Promise<void>;
}

/**
 * Takes the advisory lock `hashtext(key)`, or for a pair of keys the two-key lock
 * `(hashtext(key[0]), hashtext(key[1]))`, on a new session to `url`.
 */
export async function holdLock(
  url: string,
  key: string | readonly [string, string],
): Promise<HeldLock> {
  const keys = typeof key === 'string' ? [key] : [...key];
  const hashed = keys.map((k) => `hashtext(${pg.escapeLiteral(k)})`).join(', ');
  const session = new pg.Client({ connectionString: url });
  await session.connect();
  await session.query(`SELECT pg_advisory_lock(${hashed})`);
  let held = true;
  const release = async () => {
    if (!held) return;
    held = false;
    await session.query(`SELECT pg_advisory_unlock(${hashed})`);
  };
  return {
    waitStatement: `SELECT pg_advisory_xact_lock(${hashed})`,
    async longestWait() {
      // Outside a transaction: each statement sees the sessions as they are now.
      const { rows } = await session.query<{ ms: number | null }>(
        `SELECT max(extract(epoch FROM clock_timestamp() - query_start) * 1000)::float8 AS ms
         FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return rows[0]!.ms ?? 0;
    },
    async waiting() {
      const { rows } = await session.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return rows[0]!.n;
    },
    async othersAtWork() {
      const { rows } = await session.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()
           AND state <> 'idle' AND wait_event_type IS DISTINCT FROM 'Lock'`,
      );
      return rows[0]!.n;
    },
    release,
    async close() {
      await release().catch(() => undefined);
      await session.end();
    },
  };
}
