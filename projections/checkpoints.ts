/**
 * The `projection_checkpoints` table of a read-model schema: one row per projector with the
 * version that built its tables and the ledger position it has applied up to. A batch moves
 * its row in the same transaction as its read-model rows, so the two can never disagree.
 */
import type { Knex } from 'knex';
import { lockMigrations } from './locks.js';
import { noticePayload, CHECKPOINT_CHANNEL } from './notifications.js';
import type { Projector } from './projector.js';
import { RETIRED_READ_MODELS } from './retired.js';
import { checkSchemaName, qualified } from './sql.js';

export interface CheckpointRow {
  version: number;
  position: string | null;
}

const TABLE = 'projection_checkpoints';

/** Raised when a projector's row says another version now owns its tables. */
export class VersionChangedError extends Error {
  constructor(projector: string, ours: number, theirs: number | undefined) {
    super(
      theirs === undefined
        ? `read model ${projector} has no checkpoint row`
        : `read model ${projector} is now at version ${theirs}, this instance runs version ${ours}`,
    );
    this.name = 'VersionChangedError';
  }
}

export async function readCheckpoints(
  db: Knex,
  schema: string,
): Promise<Map<string, CheckpointRow>> {
  const { rows } = await db.raw<{ rows: ({ projector: string } & CheckpointRow)[] }>(
    `SELECT projector, version, position FROM ${qualified(schema, TABLE)}`,
  );
  return new Map(rows.map((r) => [r.projector, { version: r.version, position: r.position }]));
}

/**
 * Creates the schema, the checkpoint table and every projector's tables, and drops those of the
 * retired read models (./retired.ts). A projector whose
 * stored version is older than its code is rebuilt: its tables are dropped and its checkpoint
 * reset, so its runner projects the whole ledger again. A newer stored version means this code
 * is outdated; refusing beats fighting the newer instances over the same tables.
 */
export async function prepareProjectors(
  db: Knex,
  schema: string,
  projectors: readonly Projector[],
): Promise<void> {
  checkSchemaName(schema);
  await db.transaction(async (trx) => {
    await lockMigrations(trx, schema);
    await trx.raw(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await trx.raw(
      `CREATE TABLE IF NOT EXISTS ${qualified(schema, TABLE)} (
         projector text PRIMARY KEY,
         version integer NOT NULL,
         position text
       )`,
    );
    for (const retired of RETIRED_READ_MODELS) {
      for (const table of retired.tables) {
        await trx.raw(`DROP TABLE IF EXISTS ${qualified(schema, table)} CASCADE`);
      }
      await trx.raw(`DELETE FROM ${qualified(schema, TABLE)} WHERE projector = ?`, [
        retired.projector,
      ]);
    }
    const stored = await readCheckpoints(trx, schema);
    for (const projector of projectors) {
      const row = stored.get(projector.name);
      if (row && row.version > projector.version) {
        throw new VersionChangedError(projector.name, projector.version, row.version);
      }
      if (row && row.version < projector.version) {
        for (const table of projector.tables) {
          await trx.raw(`DROP TABLE IF EXISTS ${qualified(schema, table)} CASCADE`);
        }
      }
      await projector.migrate(trx, schema);
      await trx.raw(
        `INSERT INTO ${qualified(schema, TABLE)} AS c (projector, version, position)
         VALUES (?, ?, NULL)
         ON CONFLICT (projector) DO UPDATE SET version = excluded.version, position = NULL
         WHERE c.version <> excluded.version`,
        [projector.name, projector.version],
      );
    }
  });
}

/**
 * The statement that locks the projector's row for a batch and fails unless the row still says
 * what the batch expects (this version, at this position), for a simple-protocol query:
 * `literal` escapes the inlined values. The failure is a division by zero, so that no function
 * has to be installed for it; the caller reads the row again to tell which expectation failed.
 */
export function guardCheckpointSql(
  schema: string,
  projector: string,
  expected: CheckpointRow,
  literal: (value: string) => string,
): string {
  if (!Number.isSafeInteger(expected.version)) throw new Error('a version is an integer');
  const position = expected.position === null ? 'NULL' : literal(expected.position);
  return `SELECT 1 / count(*) FILTER (
      WHERE version = ${expected.version} AND position IS NOT DISTINCT FROM ${position}) AS guard
    FROM (SELECT version, position FROM ${qualified(schema, TABLE)}
      WHERE projector = ${literal(projector)} FOR UPDATE) AS checkpoint`;
}

/** The statement that reads the projector's row, for a simple-protocol query. */
export function checkpointRowSql(
  schema: string,
  projector: string,
  literal: (value: string) => string,
): string {
  return `SELECT version, position FROM ${qualified(schema, TABLE)}
    WHERE projector = ${literal(projector)}`;
}

/**
 * The statement that moves the checkpoint and announces it (NOTIFY is delivered on commit, so
 * other instances learn the new position only once it is readable), for a simple-protocol
 * query: every value is inlined through `literal`.
 */
export function moveCheckpointSql(
  schema: string,
  projector: string,
  position: string,
  instance: string,
  literal: (value: string) => string,
): string {
  const payload = noticePayload({ instance, schema, projector, position });
  return `WITH moved AS (
      UPDATE ${qualified(schema, TABLE)} SET position = ${literal(position)}
      WHERE projector = ${literal(projector)} RETURNING 1
    ) SELECT pg_notify(${literal(CHECKPOINT_CHANNEL)}, ${literal(payload)}) FROM moved`;
}
