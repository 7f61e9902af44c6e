/**
 * What the service thread and its projection thread tell each other (src/projection-thread.ts,
 * src/projection-thread-worker.ts). Only structured-clonable values cross.
 */
import type { Config } from '../config.js';
import type { PostgresDeadlines } from '../postgres/connection-options.js';

/** The thread's start parameters (its workerData): it reads no environment of its own. */
export interface ProjectionThreadData {
  databaseUrl: string;
  deadlines: PostgresDeadlines;
  ledger: Config['ledger'];
}

/** An error as it crosses threads: a cloned Error keeps neither its class nor its `code`. */
export interface ErrorRecord {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

export type FromProjectionThread =
  /** A projector's checkpoint as the thread's engine knows it (null: rebuilt, nothing applied). */
  | { type: 'checkpoint'; projector: string; position: string | null }
  /** A failure the engine retries by itself (a batch, a subscription, a connection). */
  | { type: 'error'; error: ErrorRecord; projector?: string }
  /** The read models are migrated and the projectors follow the ledger. */
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
   * alive for a while: the service thread terminates it instead.
   */
  | { type: 'stopped' };

export type ToProjectionThread = { type: 'stop' } | { type: 'memory'; id: number };

export function errorRecord(error: unknown): ErrorRecord {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    ...(typeof code === 'string' ? { code } : {}),
  };
}

export function fromRecord(record: ErrorRecord): Error {
  const error = new Error(record.message) as Error & { code?: string };
  error.name = record.name;
  if (record.stack !== undefined) error.stack = record.stack;
  if (record.code !== undefined) error.code = record.code;
  return error;
}
