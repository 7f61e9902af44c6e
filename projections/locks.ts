/**
 * The advisory locks that coordinate projector instances, the replay's swap and start-up
 * migrations. Each is the two-key form (namespace, `<schema>.<projector>`), hashed by Postgres.
 *
 * - leader (session lock, on a dedicated connection): one active instance per projector; the
 *   others block on it and take over when the holder's session ends.
 * - batch (transaction lock): taken first by every batch transaction; the replay's swap takes
 *   all of them so running projectors pause while the schemas are renamed.
 * - migrate (transaction lock, per schema): serialises DDL of concurrent start-ups and the swap.
 */
import type { Knex } from 'knex';

const LEADER = 'batchbook.projection.leader';
const BATCH = 'batchbook.projection.batch';
const MIGRATE = 'batchbook.projection.migrate';

/** The key of a projector's leader lock, which its worker requests (leadership.ts). */
export function leaderLockKey(schema: string, projector: string): [string, string] {
  return [LEADER, `${schema}.${projector}`];
}

/** The key of a projector's batch lock, which each of its batch transactions takes first. */
export function batchLockKey(schema: string, projector: string): [string, string] {
  return [BATCH, `${schema}.${projector}`];
}

export async function lockBatch(trx: Knex.Transaction, schema: string, projector: string) {
  await trx.raw(
    'SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))',
    batchLockKey(schema, projector),
  );
}

/** `lockBatch` as SQL text for a simple-protocol query: `literal` escapes the inlined keys. */
export function lockBatchSql(
  schema: string,
  projector: string,
  literal: (value: string) => string,
): string {
  const [namespace, name] = batchLockKey(schema, projector);
  const keys = `hashtext(${literal(namespace)}), hashtext(${literal(name)})`;
  return `SELECT pg_advisory_xact_lock(${keys})`;
}

export async function lockMigrations(trx: Knex.Transaction, schema: string) {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))', [MIGRATE, schema]);
}
