/**
 * The roles' leader locks (src/ledger/leadership.ts) as PostgreSQL holds them: a session advisory
 * lock on a dedicated connection, the key's two parts hashed by Postgres. Waiting instances block inside `pg_advisory_lock`; when
 * the holder's session ends (stop, crash, lost network) Postgres releases the lock and one
 * waiter takes over.
 */
import pg from 'pg';
import type { LeaderKey, Leadership, RequestLeadership } from '../ledger/leadership.js';

/**
 * `requestLeadership` with its sessions opened on `connection`: the form the composition root
 * hands to the rooms that elect a leader, which know a role's key but not how it is locked.
 */
export function leadershipOn(connection: pg.ClientConfig): RequestLeadership {
  return (key: LeaderKey, onLost: (err: unknown) => void): Leadership =>
    requestLeadership(connection, key, onLost);
}

/** `onLost` is called once if the session ends after the lock was held. */
export function requestLeadership(
  connection: pg.ClientConfig,
  key: LeaderKey,
  onLost: (err: unknown) => void,
): Leadership {
  const label = key[1];
  const client = new pg.Client({
    ...connection,
    // Waiting for the lock lasts as long as another instance leads: no statement deadline
    // (src/postgres/connection-options.ts) may cut it. Opening the session keeps its deadline.
    query_timeout: undefined,
    statement_timeout: undefined,
    application_name: `batchbook-leader:${label}`.slice(0, 63),
  });
  let acquiredLock = false;
  let lost = false;
  let released = false;
  const lose = (err: unknown) => {
    if (lost || released) return;
    lost = true;
    // Only a lock once held is lost; before that, `acquired` rejects instead. (Reporting both
    // made callers retry at once, in a tight loop while the database was down.)
    if (acquiredLock) onLost(err);
  };
  client.on('error', lose);
  client.on('end', () => lose(new Error(`leader connection of ${label} ended`)));
  // pg never settles a `connect()` that `end()` cut short: a release while connecting must
  // settle `acquired` itself, or whoever waits on it (a stopping worker) waits forever.
  let giveUp: (err: Error) => void = () => undefined;
  const givenUp = new Promise<never>((_, reject) => (giveUp = reject));
  const acquired = Promise.race([
    (async () => {
      await client.connect();
      // A waiter that gives up closes its connection; without this check its backend would stay
      // queued for the lock (Postgres notices a gone client only when it next writes to it).
      await client.query("SET client_connection_check_interval = '1s'");
      await client.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', [...key]);
      acquiredLock = true;
    })(),
    givenUp,
  ]);
  return {
    acquired,
    get held() {
      return acquiredLock && !lost && !released;
    },
    get lost() {
      return lost;
    },
    async release() {
      released = true;
      giveUp(new Error(`gave up the leader lock of ${label}`));
      await client.end().catch(() => undefined);
    },
  };
}
