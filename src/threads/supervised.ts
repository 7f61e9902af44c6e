/**
 * The thread's side of supervision (./supervisor.ts): it starts its work and says `ready` (or
 * `failed`, after closing what it had opened), answers how much heap it holds, and on `stop`
 * closes everything it opened, last first, and says `stopped`.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { errorRecord } from './error-record.js';
import {
  isLifeMessage,
  type FromSupervisedThread,
  type ToSupervisedThread,
} from './supervision-messages.js';

export interface SupervisedWork<Own> {
  /**
   * Starts the thread's work; each thing it opens it hands to `closeLater`, which closes them,
   * last first, when the thread stops or its start fails.
   */
  start(closeLater: (close: () => Promise<unknown>) => void): Promise<void>;
  /** A failure while closing. */
  reportError(err: unknown): void;
  /** A message of the thread's own work from the supervisor. */
  onMessage?(message: Own): void;
}

/** The V8 heap in use by this thread's own isolate (the service thread's is another). */
function heapUsed(): number {
  // Exposed only with --expose-gc: then the figure is what the thread retains, not garbage.
  (globalThis as { gc?: () => void }).gc?.();
  return getHeapStatistics().used_heap_size;
}

/** Runs `work` on this worker thread under its supervisor's control. */
export async function runSupervised<Own extends { type: string }>(
  work: SupervisedWork<Own>,
): Promise<void> {
  const port = parentPort!;
  const post = (message: FromSupervisedThread) => port.postMessage(message);
  const opened: (() => Promise<unknown>)[] = [];
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      for (const step of opened.reverse()) await step().catch((err) => work.reportError(err));
      opened.length = 0;
      post({ type: 'stopped' });
    })());

  port.on('message', (message: ToSupervisedThread | Own) => {
    if (!isLifeMessage(message)) return work.onMessage?.(message as Own);
    const life = message as ToSupervisedThread;
    if (life.type === 'stop') void close();
    else post({ type: 'memory', id: life.id, heapUsed: heapUsed() });
  });

  try {
    await work.start((step) => opened.push(step));
    post({ type: 'ready' });
  } catch (err) {
    post({ type: 'failed', error: errorRecord(err) });
    await close();
  }
}
