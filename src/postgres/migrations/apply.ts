/**
 * Applies the store migrations (./steps.ts) that a database has not applied yet, in order, and
 * records each in `schema_migrations` (name, checksum of its SQL, when) in the transaction that
 * applied it: a step that fails leaves nothing behind, and is tried again at the next start.
 *
 * One advisory lock, held on one session for the whole pass, serialises instances starting at
 * once: the second waits, then finds every step recorded. The pass runs on a connection without
 * the statement deadline, since a step may rewrite a large table.
 *
 * It refuses to go on when the database's record disagrees with this code: a recorded step whose
 * SQL has changed since (a landed step was edited), or one this code does not know (a newer
 * version migrated the database): either way this code would run against a schema it was not
 * written for.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { StartupError } from '../../startup-error.js';
import { STORE_MIGRATIONS, type MigrationStep } from './steps.js';

/** The advisory lock (`hashtext` of this key) a migration pass holds. */
export const STORE_MIGRATION_LOCK = 'batchbook.stores.migration';

const RECORD = `CREATE TABLE IF NOT EXISTS schema_migrations (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** The SHA-256 of a step's SQL, as recorded when it was applied. */
export function checksumOf(step: MigrationStep): string {
  return createHash('sha256').update(step.sql).digest('hex');
}

/** Answers the names of the steps this pass applied (none when the database was up to date). */
export async function migrateStores(
  pool: pg.Pool,
  steps: readonly MigrationStep[] = STORE_MIGRATIONS,
): Promise<string[]> {
  const client = await pool.connect();
  // A session lost while idle between two statements fails the next one instead of the process.
  client.on('error', () => undefined);
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [STORE_MIGRATION_LOCK]);
    await client.query(RECORD);
    const { rows } = await client.query<{ name: string; checksum: string }>(
      'SELECT name, checksum FROM schema_migrations',
    );
    const pending = pendingSteps(steps, new Map(rows.map((r) => [r.name, r.checksum])));
    for (const step of pending) await applyStep(client, step);
    return pending.map((step) => step.name);
  } finally {
    // The session ends with the pass, and the lock with it, however the pass ended.
    client.release(true);
  }
}

function pendingSteps(
  steps: readonly MigrationStep[],
  applied: ReadonlyMap<string, string>,
): MigrationStep[] {
  const known = new Map(steps.map((step) => [step.name, step]));
  for (const [name, checksum] of applied) {
    const step = known.get(name);
    if (!step) {
      throw new StartupError(
        `the database has store migration ${name}, which this version does not know: a newer version migrated it; run that version`,
      );
    }
    if (checksumOf(step) !== checksum) {
      throw new StartupError(
        `store migration ${name} was applied with checksum ${checksum}, and this version's differs (${checksumOf(step)}): a landed migration was edited; restore it and add a new step instead`,
      );
    }
  }
  return steps.filter((step) => !applied.has(step.name));
}

async function applyStep(client: pg.PoolClient, step: MigrationStep): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(step.sql);
    await client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [
      step.name,
      checksumOf(step),
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new Error(`store migration ${step.name} failed`, { cause: error });
  }
}
