/**
 * The ledger port (DESIGN.md §3): the only way anything reads or writes facts.
 * Both adapters (postgres, eventstoredb) implement exactly this contract, and one contract
 * test suite (test/integration/ledger/) runs against each of them.
 */

/** What the writer expects of the stream: a revision (0-based) or one of the three conditions. */
export type ExpectedRevision = 'noStream' | 'any' | 'streamExists' | bigint;

export interface NewEvent {
  /** Deterministic id (UUID form): appending an id already in the stream is a successful no-op. */
  id: string;
  type: string;
  /** Schema version of `data`. */
  version: number;
  data: unknown;
  metadata?: Record<string, unknown>;
}

export interface RecordedEvent {
  id: string;
  stream: string;
  /** 0-based position of the event in its stream. */
  revision: bigint;
  /** Opaque, adapter-chosen, totally ordered position in the all-stream; usable as a checkpoint. */
  position: string;
  type: string;
  version: number;
  data: unknown;
  metadata: Record<string, unknown>;
  recordedAt: Date;
}

export interface AppendResult {
  /** Revision of the last event now in the stream. */
  nextRevision: bigint;
  /** All-stream position of the last event this call wrote (or found, if it was a no-op). */
  position: string;
  /** False when every event's id was already in the stream: nothing new was written. */
  written: boolean;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual revision, or -1n when it does not exist. */
    readonly actual: bigint,
  ) {
    super(`stream ${stream}: expected ${String(expected)}, actual revision ${actual}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

export interface Subscription extends AsyncIterable<RecordedEvent> {
  /** Ends the iteration; pending `next()` calls resolve as done. */
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Only events of streams whose name starts with one of these prefixes. Default: all. */
  streamPrefixes?: readonly string[];
}

/** What a reader of the all-stream has yet to read. */
export interface Backlog {
  /** Events after the reader's position, counted up to the cap asked for. */
  events: number;
  /** When the first of them was recorded; null when there is none. */
  oldest: Date | null;
}

export interface Ledger {
  append(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult>;
  /** Every event of one stream in revision order; [] when the stream does not exist. */
  readStream(stream: string): Promise<RecordedEvent[]>;
  /** Up to `batch` events strictly after `after` (null: from the start), in all-stream order. */
  readAll(after: string | null, batch: number): Promise<RecordedEvent[]>;
  /**
   * How far a reader that has passed `after` (null: nothing yet) is behind the all-stream's
   * head, counting at most `cap` events. Payloads are not read where the adapter can avoid it.
   */
  backlog(after: string | null, cap: number): Promise<Backlog>;
  /** Catch-up subscription: everything after `after`, then live events, each exactly once, in order. */
  subscribe(after: string | null, options?: SubscribeOptions): Subscription;
  /** Orders two positions/checkpoints of this adapter: negative, zero or positive. */
  comparePositions(a: string, b: string): number;
  close(): Promise<void>;
}
