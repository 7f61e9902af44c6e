/**
 * The built-in solver on a thread of its own (worker.ts): solving an auction of thousands of
 * orders is synchronous work of a second or more, which on the thread serving requests would
 * stall every request and every order's fresh quote behind it (BENCHMARKS.md, "Auctions off the
 * serving thread"). Seen from the autopilot and the quotes it is the same `Solver`: an auction
 * in, the solver engine API's answer out, by the deadline or not at all. A quote's auction (one
 * order, `id` null) is solved where it is asked: a fraction of a millisecond, less than the hop
 * to the thread and back, and never queued behind an auction the thread is solving.
 *
 * A thread that ends unasked (a bug, out of memory) costs the auctions it was solving: each
 * gets no answer from the built-in solver, as a solver that failed. It is started again at once,
 * then with backoff while it keeps ending before it answers anything. A thread still solving an
 * auction past its deadline is ended and replaced at once, the auctions sent after it handed to
 * the new one: a solve that overran would otherwise hold every later auction behind it.
 */
import type { Worker } from 'node:worker_threads';
import { startTypeScriptWorker } from '../../threads/typescript-worker.js';
import {
  BUILTIN_SOLVER_NAME,
  builtinSolverOf,
  type BuiltinSolverParams,
} from '../builtin-solver.js';
import { SolverFailure, type Solver } from '../solver.js';
import type { SolverAnswer } from '../solver-api/types.js';
import type { FromSolverThread, ToSolverThread } from './messages.js';

export interface SolverThreadOptions {
  /** A thread that ended unasked, or an error it could not catch. */
  onError(err: unknown): void;
  /** The module the thread runs: worker.ts unless a test wraps it (one that ends the thread). */
  workerUrl?: string;
}

export interface SolverThread {
  /**
   * Resolves once the first thread has loaded (an auction sent before waits for that, and its
   * deadline runs meanwhile); rejects if it ends before.
   */
  ready: Promise<void>;
  /** The built-in solver competing as `params.address`, solving auctions on the thread. */
  builtinSolver(params: BuiltinSolverParams): Solver;
  /** Ends the thread; auctions it was solving get no answer. */
  stop(): Promise<void>;
}

const WORKER_URL = new URL('./worker.ts', import.meta.url).href;
const restartDelay = (failures: number) =>
  failures <= 1 ? 0 : Math.min(30_000, 1_000 * 2 ** (failures - 2));

/** An auction sent to the thread, until its answer comes back. */
interface Pending {
  thread: Worker;
  message: ToSolverThread;
  answered(answer: SolverAnswer): void;
  failed(failure: SolverFailure): void;
}

const failure = (kind: 'timeout' | 'error', message: string) =>
  new SolverFailure(BUILTIN_SOLVER_NAME, kind, message);

export function startSolverThread(options: SolverThreadOptions): SolverThread {
  const { onError, workerUrl = WORKER_URL } = options;
  const pending = new Map<number, Pending>();
  let lastId = 0;
  let current: Worker | undefined;
  /** Threads ended for overrunning a deadline: their end is no failure. */
  const retired = new WeakSet<Worker>();
  let stopping = false;
  /** Threads that ended unasked since one last answered. */
  let failures = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let loaded: () => void = () => undefined;
  let endedFirst: (err: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    loaded = resolve;
    endedFirst = reject;
  });
  // Whoever awaits it learns why; nobody need.
  ready.catch(() => undefined);

  const settle = (id: number) => {
    const entry = pending.get(id);
    pending.delete(id);
    return entry;
  };

  const running = (): Worker => {
    if (current) return current;
    const thread = startTypeScriptWorker(workerUrl, null);
    // The service's own handles keep the process alive; an idle solver thread does not.
    thread.unref();
    thread.on('message', (message: FromSolverThread) => {
      if (message.type === 'ready') return loaded();
      failures = 0;
      const entry = settle(message.id);
      if (message.type === 'answer') entry?.answered(message.answer);
      else entry?.failed(failure('error', `failed: ${message.message}`));
    });
    thread.on('error', (err) => onError(err));
    thread.on('exit', (code) => {
      if (retired.has(thread)) return;
      if (current === thread) current = undefined;
      endedFirst(new Error(`the solver thread ended as it started (exit code ${code})`));
      for (const [id, entry] of pending) {
        if (entry.thread !== thread) continue;
        settle(id);
        entry.failed(failure('error', `failed: the solver thread ended (exit code ${code})`));
      }
      if (stopping) return;
      onError(new Error(`the solver thread ended (exit code ${code})`));
      clearTimeout(restartTimer);
      restartTimer = setTimeout(() => {
        if (!stopping) running();
      }, restartDelay(++failures));
      restartTimer.unref();
    });
    current = thread;
    return thread;
  };
  running();

  /** Ends `thread`, which overran a deadline, and sends what waited behind it to a new one. */
  const replace = (thread: Worker) => {
    if (thread !== current || stopping) return;
    retired.add(thread);
    current = undefined;
    const next = running();
    for (const entry of pending.values()) {
      if (entry.thread !== thread) continue;
      entry.thread = next;
      next.postMessage(entry.message);
    }
    void thread.terminate();
  };

  const solve = (
    params: BuiltinSolverParams,
    auction: ToSolverThread['auction'],
    signal: AbortSignal,
  ) =>
    new Promise<SolverAnswer>((resolve, reject) => {
      if (stopping) return reject(failure('error', 'failed: the solver thread is stopped'));
      if (signal.aborted) return reject(failure('timeout', 'gave no answer by the deadline'));
      const id = ++lastId;
      const onAbort = () => {
        const entry = pending.get(id);
        if (!entry) return;
        // A thread solves in the order it is sent: the first of its auctions still pending is
        // the one it is on.
        const first = [...pending].find(([, other]) => other.thread === entry.thread)?.[0];
        settle(id);
        reject(failure('timeout', 'gave no answer by the deadline'));
        if (first === id) replace(entry.thread);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const thread = running();
      const message: ToSolverThread = { type: 'solve', id, solver: params, auction };
      pending.set(id, {
        thread,
        message,
        answered: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
        failed: (why) => {
          signal.removeEventListener('abort', onAbort);
          reject(why);
        },
      });
      thread.postMessage(message);
    });

  return {
    ready,
    builtinSolver: (params) => {
      const here = builtinSolverOf(params);
      return {
        ...here,
        solve: (auction, signal) =>
          auction.id === null ? here.solve(auction, signal) : solve(params, auction, signal),
      };
    },
    stop: async () => {
      stopping = true;
      clearTimeout(restartTimer);
      await current?.terminate();
    },
  };
}
