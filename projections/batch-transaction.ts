/**
 * The transaction a live batch is applied in, pipelined: on a connection in pg's pipeline mode
 * (the projection thread's, `knexOptions`' `pipelined`) its statements go to PostgreSQL without
 * waiting for the answers of the ones before, so a batch waits for as few round trips as the
 * projector's own reads allow. On any other connection the same statements wait for each other,
 * with the same effect. Each round trip costs ~0.3 ms of Node CPU on small machines
 * (mostly system calls) and, under load, the wait for a busy server; the lag of every
 * projector grows with the fixed cost of its batches (BENCHMARKS.md, "Projection lag").
 *
 *   1. BEGIN, the batch lock, and the checkpoint guard: the row locked, and the transaction
 *      failed unless the row still holds this projector's version at the position the batch
 *      starts from. One simple-protocol query, not awaited: the projector's statements follow
 *      it at once;
 *   2. the projector's own statements, parameterised (event data is never inlined); those it
 *      does not wait for in between go together;
 *   3. the checkpoint move with its NOTIFY, and COMMIT: one simple-protocol query.
 *
 * PostgreSQL runs the statements of one connection in the order they were sent, and analyses
 * each only once the ones before have run: the checkpoint table is resolved only once the batch
 * lock is held (a swap may have renamed the schemas meanwhile), and the guard reads the row with
 * a snapshot taken after the wait. A statement that fails leaves the transaction aborted: every
 * statement after it fails too, the move with its COMMIT included, and the batch is rolled
 * back. When the guard was the one that failed, the row is read again to tell a moved
 * checkpoint from a version change. Only values the runner controls are inlined: schema names
 * are checked (sql.ts), the rest go through pg's literal escaping.
 */
import type { Knex } from 'knex';
import pg from 'pg';
import {
  checkpointRowSql,
  guardCheckpointSql,
  moveCheckpointSql,
  VersionChangedError,
  type CheckpointRow,
} from './checkpoints.js';
import { oneAtATime } from './in-order.js';
import { lockBatchSql } from './locks.js';
import type { ProjectionTransaction } from './projector.js';

/** What a batch transaction expects of the checkpoint row, and where it moves it. */
export interface BatchMove {
  schema: string;
  projector: string;
  version: number;
  /** The position the row must hold (null: nothing applied yet). */
  from: string | null;
  to: string;
  /** Names this engine in the checkpoint notice. */
  instance: string;
}

/** The SQLSTATE of the guard's failure (division_by_zero). */
const GUARD_FAILED = '22012';

const literal = (value: string): string => pg.escapeLiteral(value);

type Send = (text: string, values?: unknown[]) => Promise<pg.QueryResult>;

/**
 * How the batch's statements reach the connection: at once on a pipelined one, one after
 * another on any other (pg must not be handed a query while it runs one).
 */
function sender(client: pg.Client): Send {
  const send: Send = (text, values) => client.query(text, values);
  return client.pipeline ? send : oneAtATime(send);
}

/** The projector's view of the batch: knex's `?` placeholders, bound as knex would bind them. */
function projectionTransaction(db: Knex, send: Send): ProjectionTransaction {
  return {
    raw(sql, bindings = []) {
      const native = db
        .raw(sql, [...bindings])
        .toSQL()
        .toNative();
      return send(native.sql, native.bindings as unknown[]);
    },
  };
}

/**
 * Applies `body` (the projector's statements) and moves the checkpoint from `move.from` to
 * `move.to`, in one transaction on a pooled connection. 'moved' when the row no longer held
 * `move.from` (nothing written); VersionChangedError when another version owns the tables.
 */
export async function inBatchTransaction(
  db: Knex,
  move: BatchMove,
  body: (trx: ProjectionTransaction) => Promise<void>,
): Promise<'applied' | 'moved'> {
  const { schema, projector, version } = move;
  const client = (await db.client.acquireConnection()) as pg.Client;
  const send = sender(client);
  try {
    const guard = `${lockBatchSql(schema, projector, literal)}; ${guardCheckpointSql(
      schema,
      projector,
      { version, position: move.from },
      literal,
    )}`;
    const begun = send(`BEGIN; ${guard}`);
    // Awaited below; until then a failure must not count as an unhandled rejection.
    begun.catch(() => undefined);
    try {
      await body(projectionTransaction(db, send));
      const moved = moveCheckpointSql(schema, projector, move.to, move.instance, literal);
      await send(`${moved}; COMMIT`);
    } catch (err) {
      // Behind whatever the batch still has in flight: its first failure ended the wait.
      await rollback(client, send);
      // Everything after a failed guard failed in its wake: the guard's failure is the cause.
      const cause = await begun.then(
        () => err,
        (failed: unknown) => failed,
      );
      if ((cause as { code?: string }).code !== GUARD_FAILED) throw cause;
      return await whyGuardFailed(client, move, cause);
    }
    return 'applied';
  } finally {
    await db.client.releaseConnection(client);
  }
}

/**
 * After a failed guard (rolled back): 'moved', or VersionChangedError, or (the row holds what the
 * batch expected after all) the failure itself. Read on the batch's own connection: the pool
 * may have none to spare.
 */
async function whyGuardFailed(
  client: pg.Client,
  move: BatchMove,
  failure: unknown,
): Promise<'moved'> {
  const { rows } = await client.query<CheckpointRow>(
    checkpointRowSql(move.schema, move.projector, literal),
  );
  const row = rows[0];
  if (row?.version !== move.version) {
    throw new VersionChangedError(move.projector, move.version, row?.version);
  }
  if (row.position !== move.from) return 'moved';
  throw failure;
}

/**
 * A connection must never return to the pool inside a transaction: when even ROLLBACK fails,
 * it is closed instead (the pool then discards it, and Postgres aborts what was left open).
 */
async function rollback(client: pg.Client, send: Send): Promise<void> {
  try {
    await send('ROLLBACK');
  } catch {
    await client.end().catch(() => undefined);
  }
}
