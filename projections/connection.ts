/**
 * Dedicated connections (a leader lock's session, the LISTEN connection) must live outside the
 * knex pool: a session lock on a pooled connection would outlive its owner on the next borrower.
 * They use the same settings as the pool.
 */
import type { Knex } from 'knex';
import type pg from 'pg';

export function dedicatedConnectionConfig(db: Knex): pg.ClientConfig {
  const settings = db.client.connectionSettings as pg.ClientConfig;
  // knex hides the password from enumeration (to keep it out of logs); a spread would drop it.
  // A session that waits on a lock or listens has nothing to pipeline (batch-transaction.ts).
  return { ...settings, password: settings.password, keepAlive: true, pipeline: false };
}
