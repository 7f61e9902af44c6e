/**
 * What the service thread and its projection thread tell each other of the projections
 * (./thread.ts, ./worker.ts), beside the thread's life (src/threads/supervision-messages.ts).
 * Only structured-clonable values cross.
 */
import type { Config } from '../config.js';
import type { PostgresDeadlines } from '../postgres/connection-options.js';
import type { ErrorRecord } from '../threads/error-record.js';

/** The thread's start parameters (its workerData): it reads no environment of its own. */
export interface ProjectionThreadData {
  databaseUrl: string;
  deadlines: PostgresDeadlines;
  ledger: Config['ledger'];
  /** How long a projector in no hurry may hold a batch open (ms); default: the engine's. */
  batchWindowMs?: number;
}

/**
 * A wait of the service thread wants `projector` at `position`: a projector in no hurry then
 * closes its batch as soon as it holds that position.
 */
export type ToProjectionThread = { type: 'wanted'; projector: string; position: string };

export type FromProjectionThread =
  /** A projector's checkpoint as the thread's engine knows it (null: rebuilt, nothing applied). */
  | { type: 'checkpoint'; projector: string; position: string | null }
  /** A failure the engine retries by itself (a batch, a subscription, a connection). */
  | { type: 'error'; error: ErrorRecord; projector?: string };
