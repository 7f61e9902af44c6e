/**
 * Runs the projection engine on a thread of its own (src/projection-thread-worker.ts): the
 * projectors' decoding, reducing and statement building then no longer queue behind the HTTP
 * handlers on the service thread, nor they behind the projectors (BENCHMARKS.md, "Projections
 * on a thread of their own"). The service thread keeps a board of the checkpoints the thread
 * reports, which answers the read-your-writes waits of every accepted command.
 *
 * A thread that ends unasked (a bug, out of memory) is reported and started again with backoff;
 * the board keeps its positions meanwhile and waits time out as usual.
 */
import type { Worker } from 'node:worker_threads';
import { CheckpointBoard } from '../../projections/board.js';
import { allProjectors } from '../../projections/index.js';
import type { ProjectionEngine } from '../../projections/runner.js';
import {
  fromRecord,
  type FromProjectionThread,
  type ProjectionThreadData,
  type ToProjectionThread,
} from './messages.js';
import { startTypeScriptWorker } from '../typescript-worker.js';

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
   * The module the thread runs: src/projection-thread-worker.ts unless a test wraps it (one
   * that ends the thread mid-run, to show the restart).
   */
  workerUrl?: string;
  /**
   * The most the thread's old generation may hold (MiB): past it the thread alone ends, out of
   * memory, and starts again from its checkpoints, while this thread serves on. Default: V8's.
   */
  heapLimitMb?: number;
}

/** A started thread, and its end. */
interface Thread {
  worker: Worker;
  exited: Promise<void>;
}

const WORKER_URL = new URL('./worker.ts', import.meta.url).href;
/** How long a stopping thread may take to finish its batches before it is terminated. */
const STOP_DEADLINE_MS = 15_000;
const restartDelay = (attempt: number) => Math.min(30_000, 1_000 * 2 ** attempt);
/**
 * A thread that ran this long before it ended had recovered: the next restart is quick again.
 * One that ends sooner (out of memory on the same event, each time) backs off further.
 */
const RECOVERED_AFTER_MS = 60_000;

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

/** How long `heapUsed` waits for the thread's answer. */
const MEMORY_ANSWER_MS = 1_000;

/** Starts the thread; resolves once its read models are migrated and its projectors follow. */
export async function startProjectionThread(
  options: ProjectionThreadOptions,
): Promise<ProjectionThreadEngine> {
  const { comparePositions, onError, workerUrl = WORKER_URL, heapLimitMb, ...data } = options;
  const resourceLimits =
    heapLimitMb === undefined ? undefined : { maxOldGenerationSizeMb: heapLimitMb };
  const board = new CheckpointBoard(
    allProjectors().map((p) => p.name),
    comparePositions,
  );
  let stopping = false;
  let restarts = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  /** The thread running now, or starting again after one that ended unasked. */
  let current: Promise<Thread> | undefined;
  /** The `heapUsed` calls waiting for the thread's answer, by the id of their question. */
  const memoryWaits = new Map<number, (heapUsed: number | null) => void>();
  let lastMemoryQuestion = 0;
  /** A thread has started and not ended since. */
  let up = false;

  /** One thread's life: resolves at 'ready', rejects if it fails or ends before that. */
  const launch = (): Promise<Thread> =>
    new Promise((resolve, reject) => {
      const worker = startTypeScriptWorker(
        workerUrl,
        data satisfies ProjectionThreadData,
        resourceLimits,
      );
      // Not `once(worker, 'exit')`: that would reject on the thread's 'error', which 'exit' follows.
      const exited = new Promise<void>((ended) => worker.once('exit', () => ended()));
      let ready = false;
      let readyAt = 0;
      worker.on('message', (message: FromProjectionThread) => {
        switch (message.type) {
          case 'checkpoint':
            board.set(message.projector, message.position);
            return;
          case 'error':
            onError(fromRecord(message.error), message.projector);
            return;
          case 'ready':
            ready = true;
            up = true;
            readyAt = Date.now();
            resolve({ worker, exited });
            return;
          case 'failed':
            reject(fromRecord(message.error));
            return;
          case 'memory':
            memoryWaits.get(message.id)?.(message.heapUsed);
            return;
          case 'stopped':
            void worker.terminate();
            return;
        }
      });
      // An uncaught exception on the thread; 'exit' follows.
      worker.on('error', (err) => (ready ? onError(err) : reject(err)));
      worker.on('exit', (code) => {
        if (ready) up = false;
        // An ended thread answers no more.
        for (const answer of memoryWaits.values()) answer(null);
        if (!ready) {
          reject(new Error(`the projection thread ended at start-up (exit code ${code})`));
        } else if (!stopping) {
          if (Date.now() - readyAt >= RECOVERED_AFTER_MS) restarts = 0;
          restartLater(new Error(`the projection thread ended (exit code ${code})`));
        }
      });
    });

  const restartLater = (why: Error) => {
    onError(why);
    current = undefined;
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (stopping) return;
      const next = launch();
      current = next;
      next.catch((err: unknown) => {
        if (current === next && !stopping) {
          restartLater(err instanceof Error ? err : new Error(String(err)));
        }
      });
    }, restartDelay(restarts++));
  };

  const stopThread = async ({ worker, exited }: Thread) => {
    worker.postMessage({ type: 'stop' } satisfies ToProjectionThread);
    const deadline = setTimeout(() => void worker.terminate(), STOP_DEADLINE_MS);
    await exited;
    clearTimeout(deadline);
  };

  const first = launch();
  current = first;
  await first;
  let stopped: Promise<void> | undefined;
  return {
    waitFor: (projector, position, timeoutMs) => board.waitFor(projector, position, timeoutMs),
    checkpoint: (projector) => board.get(projector),
    heapUsed: async () => {
      const thread = await current?.catch(() => undefined);
      if (!thread || stopping) return null;
      const id = ++lastMemoryQuestion;
      return new Promise<number | null>((resolve) => {
        const answer = (heapUsed: number | null) => {
          clearTimeout(deadline);
          memoryWaits.delete(id);
          resolve(heapUsed);
        };
        const deadline = setTimeout(() => answer(null), MEMORY_ANSWER_MS);
        memoryWaits.set(id, answer);
        thread.worker.postMessage({ type: 'memory', id } satisfies ToProjectionThread);
      });
    },
    running: () => up && !stopping,
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        clearTimeout(restartTimer);
        // A thread still starting again is stopped once it has started, or has failed to.
        const thread = await current?.catch(() => undefined);
        if (thread) await stopThread(thread);
        board.close();
      })()),
  };
}
