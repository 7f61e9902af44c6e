/**
 * The transaction a live batch is applied in, in as few round trips as its guarantees allow:
 * each costs ~0.3 ms of Node CPU on small machines (mostly system calls), and knex's
 * `transaction` plus one statement per step took six per batch.
 *
 *   1. BEGIN, the batch lock and the checkpoint row lock: one simple-protocol query;
 *   2. the projector's own statements, parameterised (event data is never inlined);
 *   3. the checkpoint move with its NOTIFY, and COMMIT: one simple-protocol query.
 *
 * Postgres analyses the statements of such a query one at a time, each after the previous one
 * ran, so the checkpoint table is resolved only once the batch lock is held (a swap may have
 * renamed the schemas meanwhile) and is read with a snapshot taken after the wait. A statement
 * that fails skips the rest (COMMIT included) and leaves the transaction to be rolled back.
 * Only values the runner controls are inlined: schema names are checked (sql.ts), the rest go
 * through pg's literal escaping.
 */
import type { Knex } from 'knex';
import pg from 'pg';
import { lockCheckpointSql, moveCheckpointSql, type CheckpointRow } from './checkpoints.js';
import { lockBatchSql } from './locks.js';
import type { ProjectionTransaction } from './projector.js';

export class BatchTransaction implements ProjectionTransaction {
  committed = false;

  constructor(
    private readonly db: Knex,
    private readonly client: pg.Client,
    private readonly schema: string,
    private readonly projector: string,
  ) {}

  raw(sql: string, bindings: readonly Knex.RawBinding[] = []) {
    return this.db.raw(sql, bindings).connection(this.client);
  }

  /** Moves the checkpoint to `position`, announces it and commits. */
  async commit(position: string, instance: string): Promise<void> {
    const move = moveCheckpointSql(this.schema, this.projector, position, instance, literal);
    await this.client.query(`${move}; COMMIT`);
    this.committed = true;
  }
}

const literal = (value: string): string => pg.escapeLiteral(value);

/**
 * Runs `body` in a batch transaction on a pooled connection, with the batch lock held and the
 * projector's checkpoint row locked and read (null: no row). Unless `body` commits, the
 * transaction is rolled back, also when it throws.
 */
export async function inBatchTransaction<T>(
  db: Knex,
  schema: string,
  projector: string,
  body: (trx: BatchTransaction, checkpoint: CheckpointRow | null) => Promise<T>,
): Promise<T> {
  const client = (await db.client.acquireConnection()) as pg.Client;
  const trx = new BatchTransaction(db, client, schema, projector);
  try {
    const begin = `BEGIN; ${lockBatchSql(schema, projector, literal)}; ${lockCheckpointSql(
      schema,
      projector,
      literal,
    )}`;
    const results = (await client.query(begin)) as unknown as pg.QueryResult<CheckpointRow>[];
    const result = await body(trx, results[2]!.rows[0] ?? null);
    if (!trx.committed) await rollback(client);
    return result;
  } catch (err) {
    // After a failed COMMIT there is no transaction left: Postgres only warns.
    await rollback(client);
    throw err;
  } finally {
    await db.client.releaseConnection(client);
  }
}

/**
 * A connection must never return to the pool inside a transaction: when even ROLLBACK fails,
 * it is closed instead (the pool then discards it, and Postgres aborts what was left open).
 */
async function rollback(client: pg.Client): Promise<void> {
  try {
    await client.query('ROLLBACK');
  } catch {
    await client.end().catch(() => undefined);
  }
}
