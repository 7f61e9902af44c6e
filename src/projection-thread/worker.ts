/**
 * The projection thread: a composition root of its own
 * that opens its own PostgreSQL connections and ledger, runs every projector
 * (`startProjections`), and tells the service thread each checkpoint it learns and each failure
 * its engine retries. It stops when asked to, after its batches in flight, and says so.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import knex, { type Knex } from 'knex';
import type pg from 'pg';
import { dedicatedConnectionConfig } from '../../projections/connection.js';
import { allProjectors } from '../../projections/index.js';
import { startProjections, type ProjectionEngine } from '../../projections/runner.js';
import { openLedger } from '../ledger/open-ledger.js';
import { createPool, knexOptions, migrationKnexOptions } from '../postgres/connection-options.js';
import { leadershipOn } from '../postgres/leadership.js';
import {
  errorRecord,
  type FromProjectionThread,
  type ProjectionThreadData,
  type ToProjectionThread,
} from './messages.js';

/** The ledger's page reads (shared by the subscriptions) and its LISTEN session. */
const LEDGER_POOL_MAX = 8;
/** One batch transaction per projector at a time, and the checkpoint notices' session. */
const READ_MODEL_POOL_MAX = 8;

const port = parentPort!;
const data = workerData as ProjectionThreadData;
const post = (message: FromProjectionThread) => port.postMessage(message);
const reportError = (err: unknown, projector?: string) =>
  post({ type: 'error', error: errorRecord(err), ...(projector ? { projector } : {}) });

/** Closing steps, run last first: what start-up opened, however far it got. */
const opened: (() => Promise<unknown>)[] = [];

async function start(): Promise<ProjectionEngine> {
  const pool: pg.Pool = createPool(data.databaseUrl, data.deadlines, LEDGER_POOL_MAX);
  pool.on('error', (err) => reportError(err));
  opened.push(() => pool.end());
  // The thread only reads the ledger, whose tables its starter has created.
  const ledger = openLedger(data.ledger, {
    pool,
    onError: (err) => reportError(err),
  });
  opened.push(() => ledger.close());
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
  opened.push(() => db.destroy());
  // Only for the start: the read models' migrations run without the statement deadline.
  const migrationDb: Knex = knex({
    client: 'pg',
    ...migrationKnexOptions(data.databaseUrl, data.deadlines),
    log,
  });
  let engine: ProjectionEngine;
  try {
    engine = await startProjections({
      ledger,
      db,
      migrationDb,
      projectors: allProjectors(),
      requestLeadership: leadershipOn(dedicatedConnectionConfig(db)),
      onError: reportError,
      onCheckpoint: (projector, position) => post({ type: 'checkpoint', projector, position }),
    });
  } finally {
    await migrationDb.destroy();
  }
  opened.push(() => engine.stop());
  return engine;
}

async function close(): Promise<void> {
  for (const step of opened.reverse()) await step().catch(reportError);
  opened.length = 0;
  post({ type: 'stopped' });
}

/** The V8 heap in use by this thread's own isolate (the service thread's is another). */
function heapUsed(): number {
  // Exposed only with --expose-gc: then the figure is what the thread retains, not garbage.
  (globalThis as { gc?: () => void }).gc?.();
  return getHeapStatistics().used_heap_size;
}

port.on('message', (message: ToProjectionThread) => {
  if (message.type === 'stop') void close();
  else post({ type: 'memory', id: message.id, heapUsed: heapUsed() });
});

try {
  await start();
  post({ type: 'ready' });
} catch (err) {
  post({ type: 'failed', error: errorRecord(err) });
  await close();
}
