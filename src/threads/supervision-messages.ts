/**
 * What a supervised thread (the projections', the auctions') and its supervisor on the service
 * thread tell each other about the thread's life, beside the messages of the thread's own work.
 * Only structured-clonable values cross.
 */
import type { ErrorRecord } from './error-record.js';

export type FromSupervisedThread =
  /** Started: the thread does its work from now on. */
  | { type: 'ready' }
  /** Start-up failed; what it had opened is closed. */
  | { type: 'failed'; error: ErrorRecord }
  /**
   * The thread's V8 heap in use, in bytes, answering the `memory` message with this `id` (after a
   * full collection when the process runs with `--expose-gc`, as the soak bench does).
   */
  | { type: 'memory'; id: number; heapUsed: number }
  /**
   * Stopped (asked to, or after a failed start): everything is closed or closing. Sessions still
   * ending (one waiting on a lock ends only when the server next reads it) would keep the thread
   * alive for a while: the supervisor terminates it instead.
   */
  | { type: 'stopped' };

export type ToSupervisedThread = { type: 'stop' } | { type: 'memory'; id: number };

const LIFE_MESSAGES: ReadonlySet<string> = new Set([
  'ready',
  'failed',
  'memory',
  'stopped',
  'stop',
]);

/** Whether `message` is one of the thread's life, not of its own work. */
export function isLifeMessage(message: { type: string }): boolean {
  return LIFE_MESSAGES.has(message.type);
}
