/**
 * Runs the projection engine on a thread of its own (./worker.ts): the projectors' decoding,
 * reducing and statement building then no longer queue behind the HTTP handlers on the service
 * thread, nor they behind the projectors (BENCHMARKS.md, "Projections on a thread of their own"). The service thread keeps a board of the checkpoints the thread
 * reports, which answers the read-your-writes waits of every accepted command.
 *
 * A thread that ends unasked (a bug, out of memory) is reported and started again with backoff
 * (src/threads/supervisor.ts); the board keeps its positions meanwhile and waits time out as
 * usual.
 */
import { CheckpointBoard } from '../../projections/board.js';
import { allProjectors } from '../../projections/index.js';
import type { ProjectionEngine } from '../../projections/runner.js';
import { fromRecord } from '../threads/error-record.js';
import { superviseThread } from '../threads/supervisor.js';
import type { FromProjectionThread, ProjectionThreadData, ToProjectionThread } from './messages.js';

/**
 * The thread reads the ledger and does not create its tables: its starter has (the service's
 * start-up pass, or a ledger of the starter's own).
 */
export interface ProjectionThreadOptions extends ProjectionThreadData {
  /** The ledger's position order (`Ledger.comparePositions`). */
  comparePositions(a: string, b: string): number;
  /** Failures the thread's engine retries, and a thread that ended unasked. */
  onError(err: unknown, projector?: string): void;
  /**
   * The module the thread runs: ./worker.ts unless a test wraps it (one that ends the thread
   * mid-run, to show the restart).
   */
  workerUrl?: string;
  /**
   * The most the thread's old generation may hold (MiB): past it the thread alone ends, out of
   * memory, and starts again from its checkpoints, while this thread serves on. Default: V8's.
   */
  heapLimitMb?: number;
}

const WORKER_URL = new URL('./worker.ts', import.meta.url).href;

/** The engine on its thread, which can also say how much heap the thread holds. */
export interface ProjectionThreadEngine extends ProjectionEngine {
  /**
   * The thread's V8 heap in use, in bytes (after a full collection when the process runs with
   * `--expose-gc`); null while no thread runs, or when it does not answer within a second (a
   * thread busy that long is reported by its lag, not here).
   */
  heapUsed(): Promise<number | null>;
  /** False while the thread starts again after it ended unasked, and once stopped. */
  running(): boolean;
}

/** Starts the thread; resolves once its read models are migrated and its projectors follow. */
export async function startProjectionThread(
  options: ProjectionThreadOptions,
): Promise<ProjectionThreadEngine> {
  const { comparePositions, onError, workerUrl = WORKER_URL, heapLimitMb, ...data } = options;
  const projectors = allProjectors();
  /**
   * The projectors in no hurry, and the furthest position a wait has asked each for: only a
   * further one is worth a message. (A thread started again after an end learns of the next
   * further one; the waits between go at most one batch window later.)
   */
  const wanted = new Map<string, string | null>(
    projectors.filter((p) => p.gathers).map((p) => [p.name, null]),
  );
  const want = (projector: string, position: string) => {
    if (!wanted.has(projector)) return;
    const furthest = wanted.get(projector);
    if (furthest && comparePositions(position, furthest) <= 0) return;
    wanted.set(projector, position);
    thread.post({ type: 'wanted', projector, position });
  };
  const board = new CheckpointBoard(
    projectors.map((p) => p.name),
    comparePositions,
    { onWait: want },
  );
  const { thread, started } = superviseThread<FromProjectionThread, ToProjectionThread>({
    name: 'the projection thread',
    moduleUrl: workerUrl,
    data: data satisfies ProjectionThreadData,
    resourceLimits: heapLimitMb === undefined ? undefined : { maxOldGenerationSizeMb: heapLimitMb },
    onMessage: (message) => {
      if (message.type === 'checkpoint') board.set(message.projector, message.position);
      else onError(fromRecord(message.error), message.projector);
    },
    onError,
  });
  await started;
  let stopped: Promise<void> | undefined;
  return {
    waitFor: (projector, position, timeoutMs) => board.waitFor(projector, position, timeoutMs),
    want,
    checkpoint: (projector) => board.get(projector),
    heapUsed: () => thread.heapUsed(),
    running: () => thread.running(),
    stop: () =>
      (stopped ??= (async () => {
        await thread.stop();
        board.close();
      })()),
  };
}
