/**
 * The projection engine (DESIGN.md §5): runs every projector against one read-model schema,
 * each with at most one active instance across all processes, and answers `waitFor`, the
 * read-your-writes wait of every accepted command.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Ledger } from '../src/ledger/port.js';
import { CheckpointBoard } from './board.js';
import { prepareProjectors, readCheckpoints } from './checkpoints.js';
import { dedicatedConnectionConfig } from './connection.js';
import type { RequestLeadership } from '../src/ledger/leadership.js';
import { NoticeListener } from './notifications.js';
import type { Projector } from './projector.js';
import { checkSchemaName } from './sql.js';
import { ProjectorWorker } from './worker.js';

export interface ProjectionEngine {
  /** True once `projector` has applied everything up to `position`; false after `timeoutMs`. */
  waitFor(projector: string, position: string, timeoutMs: number): Promise<boolean>;
  /**
   * A wait of this instance wants `projector` to reach `position` (`waitFor` tells it by
   * itself): a batch gathering events for it goes as soon as it holds that position.
   */
  want(projector: string, position: string): void;
  /** The last known checkpoint of `projector` (null: nothing applied yet). */
  checkpoint(projector: string): string | null;
  /** Finishes the batches in flight, releases the leader locks, answers pending waits false. */
  stop(): Promise<void>;
}

export interface ProjectionOptions {
  ledger: Ledger;
  db: Knex;
  projectors: readonly Projector[];
  /** Each projector's leader lock: one active instance across processes. */
  requestLeadership: RequestLeadership;
  /**
   * Where the read models are created and upgraded at start; default `db`. Give connections
   * without statement deadlines: a migration may build an index over a large table, or wait
   * while another instance migrates.
   */
  migrationDb?: Knex;
  /** Read-model schema; default `read`. */
  schema?: string;
  /** Most events per batch transaction; default 500. */
  batchSize?: number;
  /**
   * How long a projector that `gathers` may hold a batch open for more events while no wait of
   * this instance wants it (ms); default 25, 0: never.
   */
  batchWindowMs?: number;
  /** Batch, subscription and connection failures (all retried); default: console.error. */
  onError?(err: unknown, projector?: string): void;
  /** Told of every checkpoint the engine learns, its own or another instance's. */
  onCheckpoint?(projector: string, position: string | null): void;
}

export const DEFAULT_BATCH_SIZE = 500;
export const DEFAULT_BATCH_WINDOW_MS = 25;

/** Creates or upgrades the read models, then starts following the ledger in the background. */
export async function startProjections(options: ProjectionOptions): Promise<ProjectionEngine> {
  const { ledger, db, projectors } = options;
  const schema = checkSchemaName(options.schema ?? 'read');
  const names = projectors.map((p) => p.name);
  if (new Set(names).size !== names.length) throw new Error('projector names must be unique');
  const report =
    options.onError ??
    ((err: unknown, projector?: string) => console.error(`projection ${projector ?? ''}`, err));

  await prepareProjectors(options.migrationDb ?? db, schema, projectors);

  const instance = randomUUID();
  const workers = new Map<string, ProjectorWorker>();
  const want = (projector: string, position: string) => workers.get(projector)?.want(position);
  const board = new CheckpointBoard(names, (a, b) => ledger.comparePositions(a, b), {
    onSet: options.onCheckpoint,
    onWait: want,
  });
  // A leading worker publishes its own checkpoints; notices and table reads would race with it.
  const followed = (projector: string) => board.has(projector) && !workers.get(projector)?.leading;

  const listener = new NoticeListener({
    connection: dedicatedConnectionConfig(db),
    onNotice: (notice) => {
      if (notice.schema !== schema || notice.instance === instance) return;
      if (followed(notice.projector)) board.set(notice.projector, notice.position);
    },
    onConnected: async () => {
      for (const [projector, row] of await readCheckpoints(db, schema)) {
        if (followed(projector)) board.set(projector, row.position);
      }
    },
    onError: (err) => report(err),
  });
  await listener.start();

  for (const projector of projectors) {
    const worker = new ProjectorWorker(projector, {
      ledger,
      db,
      schema,
      instance,
      requestLeadership: options.requestLeadership,
      batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
      batchWindowMs: options.batchWindowMs ?? DEFAULT_BATCH_WINDOW_MS,
      publish: (name, position) => board.set(name, position),
      report,
    });
    workers.set(projector.name, worker);
  }

  let stopping: Promise<void> | undefined;
  return {
    waitFor: (projector, position, timeoutMs) => board.waitFor(projector, position, timeoutMs),
    want,
    checkpoint: (projector) => board.get(projector),
    stop: () =>
      (stopping ??= (async () => {
        await Promise.all([...workers.values()].map((w) => w.stop()));
        await listener.close();
        board.close();
      })()),
  };
}
