/**
 * Runs a worker thread (./supervised.ts on its side) for the whole life of the service: a
 * thread that ends unasked (a bug, out of memory) is reported and started again with backoff,
 * while the service thread serves on; a stopping thread gets a deadline to close what it
 * opened, then is terminated.
 */
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { fromRecord } from './error-record.js';
import {
  isLifeMessage,
  type FromSupervisedThread,
  type ToSupervisedThread,
} from './supervision-messages.js';
import { startTypeScriptWorker } from './typescript-worker.js';

export interface SupervisorOptions<From> {
  /** What the thread is called in errors, e.g. "the projection thread". */
  name: string;
  /** The module the thread runs (a file URL). */
  moduleUrl: string;
  /** Its workerData. */
  data: unknown;
  resourceLimits?: ResourceLimits;
  /** A message of the thread's own work (every message but those of its life). */
  onMessage(message: From): void;
  /** An error the thread could not catch, and a thread that ended unasked. */
  onError(err: unknown): void;
}

export interface SupervisedThread<To> {
  /** Posts to the thread running now; dropped while none runs. */
  post(message: To): void;
  /**
   * The thread's V8 heap in use, in bytes; null while no thread runs, or when it does not answer
   * within a second (a thread busy that long shows elsewhere).
   */
  heapUsed(): Promise<number | null>;
  /** False while the thread starts again after it ended unasked, and once stopped. */
  running(): boolean;
  stop(): Promise<void>;
}

/** A started thread, and its end. */
interface Thread {
  worker: Worker;
  exited: Promise<void>;
}

/** How long a stopping thread may take to close what it opened before it is terminated. */
const STOP_DEADLINE_MS = 15_000;
const restartDelay = (attempt: number) => Math.min(30_000, 1_000 * 2 ** attempt);
/**
 * A thread that ran this long before it ended had recovered: the next restart is quick again.
 * One that ends sooner (out of memory on the same work, each time) backs off further.
 */
const RECOVERED_AFTER_MS = 60_000;
/** How long `heapUsed` waits for the thread's answer. */
const MEMORY_ANSWER_MS = 1_000;

/** A supervised thread, and its first start. */
export interface SupervisedStart<To> {
  thread: SupervisedThread<To>;
  /**
   * Resolves once the first thread is ready; rejects if it fails to start (a start the service
   * cannot do without: it stops). Later ends are the supervisor's to handle.
   */
  started: Promise<void>;
}

/** Starts the thread and returns at once; whoever needs it running awaits `started`. */
export function superviseThread<From extends { type: string }, To>(
  options: SupervisorOptions<From>,
): SupervisedStart<To> {
  const { name, moduleUrl, data, resourceLimits, onMessage, onError } = options;
  let stopping = false;
  let restarts = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  /** The thread running now, or starting again after one that ended unasked. */
  let current: Promise<Thread> | undefined;
  /** The thread once ready, until it ends. */
  let up: Worker | undefined;
  /** A thread not yet ready: one stopped then has nothing to close, and is ended at once. */
  let starting: Worker | undefined;
  /** The `heapUsed` calls waiting for the thread's answer, by the id of their question. */
  const memoryWaits = new Map<number, (heapUsed: number | null) => void>();
  let lastMemoryQuestion = 0;

  /** One thread's life: resolves at 'ready', rejects if it fails or ends before that. */
  const launch = (): Promise<Thread> =>
    new Promise((resolve, reject) => {
      const worker = startTypeScriptWorker(moduleUrl, data, resourceLimits);
      starting = worker;
      // Not `once(worker, 'exit')`: that would reject on the thread's 'error', which 'exit' follows.
      const exited = new Promise<void>((ended) => worker.once('exit', () => ended()));
      let ready = false;
      let readyAt = 0;
      worker.on('message', (message: FromSupervisedThread | From) => {
        if (!isLifeMessage(message)) return onMessage(message as From);
        const life = message as FromSupervisedThread;
        switch (life.type) {
          case 'ready':
            ready = true;
            up = worker;
            starting = undefined;
            readyAt = Date.now();
            resolve({ worker, exited });
            return;
          case 'failed':
            reject(fromRecord(life.error));
            return;
          case 'memory':
            memoryWaits.get(life.id)?.(life.heapUsed);
            return;
          case 'stopped':
            void worker.terminate();
            return;
        }
      });
      // An uncaught exception on the thread; 'exit' follows.
      worker.on('error', (err) => (ready ? onError(err) : reject(err)));
      worker.on('exit', (code) => {
        if (up === worker) up = undefined;
        if (starting === worker) starting = undefined;
        // An ended thread answers no more.
        for (const answer of memoryWaits.values()) answer(null);
        if (!ready) {
          reject(new Error(`${name} ended at start-up (exit code ${code})`));
        } else if (!stopping) {
          if (Date.now() - readyAt >= RECOVERED_AFTER_MS) restarts = 0;
          restartLater(new Error(`${name} ended (exit code ${code})`));
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
    worker.postMessage({ type: 'stop' } satisfies ToSupervisedThread);
    const deadline = setTimeout(() => void worker.terminate(), STOP_DEADLINE_MS);
    await exited;
    clearTimeout(deadline);
  };

  const first = launch();
  current = first;
  let stopped: Promise<void> | undefined;
  const thread: SupervisedThread<To> = {
    post: (message) => up?.postMessage(message),
    heapUsed: async () => {
      const running = await current?.catch(() => undefined);
      if (!running || stopping) return null;
      const id = ++lastMemoryQuestion;
      return new Promise<number | null>((resolve) => {
        const answer = (heapUsed: number | null) => {
          clearTimeout(deadline);
          memoryWaits.delete(id);
          resolve(heapUsed);
        };
        const deadline = setTimeout(() => answer(null), MEMORY_ANSWER_MS);
        memoryWaits.set(id, answer);
        running.worker.postMessage({ type: 'memory', id } satisfies ToSupervisedThread);
      });
    },
    running: () => up !== undefined && !stopping,
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        clearTimeout(restartTimer);
        // A thread still starting is ended at once: what it opened (sockets) closes with it. A
        // ready one closes what it opened first.
        void starting?.terminate();
        const started = await current?.catch(() => undefined);
        if (started) await stopThread(started);
      })()),
  };
  const started = first.then(() => undefined);
  // A failed start is reported to whoever awaits `started`, however much later they do.
  started.catch(() => undefined);
  return { thread, started };
}
