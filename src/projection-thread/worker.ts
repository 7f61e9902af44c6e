/**
 * The projection thread: a composition root of its own that opens its own PostgreSQL
 * connections and ledger, runs every projector (`startProjections`), and tells the service
 * thread each checkpoint it learns and each failure its engine retries. It stops when asked to,
 * after its batches in flight (src/threads/supervised.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import knex, { type Knex } from 'knex';
import type pg from 'pg';
import { dedicatedConnectionConfig } from '../../projections/connection.js';
import { allProjectors } from '../../projections/index.js';
import { startProjections, type ProjectionEngine } from '../../projections/runner.js';
import { openLedger } from '../ledger/open-ledger.js';
import { createPool, knexOptions, migrationKnexOptions } from '../postgres/connection-options.js';
import { leadershipOn } from '../postgres/leadership.js';
import { errorRecord } from '../threads/error-record.js';
import { runSupervised } from '../threads/supervised.js';
import type { FromProjectionThread, ProjectionThreadData, ToProjectionThread } from './messages.js';

/** The ledger's page reads (shared by the subscriptions) and its LISTEN session. */
const LEDGER_POOL_MAX = 8;
/** One batch transaction per projector at a time, and the checkpoint notices' session. */
const READ_MODEL_POOL_MAX = 8;

const data = workerData as ProjectionThreadData;
const post = (message: FromProjectionThread) => parentPort!.postMessage(message);
const reportError = (err: unknown, projector?: string) =>
  post({ type: 'error', error: errorRecord(err), ...(projector ? { projector } : {}) });

/** The engine once started: the service thread's wants go to it. */
let engine: ProjectionEngine | undefined;

await runSupervised<ToProjectionThread>({
  reportError,
  onMessage: (message) => engine?.want(message.projector, message.position),
  async start(closeLater) {
    const pool: pg.Pool = createPool(data.databaseUrl, data.deadlines, LEDGER_POOL_MAX);
    pool.on('error', (err) => reportError(err));
    closeLater(() => pool.end());
    // The thread only reads the ledger, whose tables its starter has created.
    const ledger = openLedger(data.ledger, {
      pool,
      onError: (err) => reportError(err),
    });
    closeLater(() => ledger.close());
    // What knex warns of (a connection that failed or dropped) also fails the query, which the
    // engine reports; its errors are reported as the engine's. Without a logger of its own knex
    // prints to the console, between the service's JSON lines.
    const log = { warn: () => undefined, error: (message: unknown) => reportError(message) };
    const db: Knex = knex({
      client: 'pg',
      // Pipelined: a batch transaction's statements go without waiting for each other.
      ...knexOptions(
        data.databaseUrl,
        data.deadlines,
        { min: 0, max: READ_MODEL_POOL_MAX },
        { pipelined: true },
      ),
      log,
    });
    closeLater(() => db.destroy());
    // Only for the start: the read models' migrations run without the statement deadline.
    const migrationDb: Knex = knex({
      client: 'pg',
      ...migrationKnexOptions(data.databaseUrl, data.deadlines),
      log,
    });
    try {
      const started = await startProjections({
        ledger,
        db,
        migrationDb,
        projectors: allProjectors(),
        batchWindowMs: data.batchWindowMs,
        requestLeadership: leadershipOn(dedicatedConnectionConfig(db)),
        onError: reportError,
        onCheckpoint: (projector, position) => post({ type: 'checkpoint', projector, position }),
      });
      closeLater(() => started.stop());
      engine = started;
    } finally {
      await migrationDb.destroy();
    }
  },
});
