/**
 * A projector turns ledger events into one read model (DESIGN.md §5). It is a deterministic
 * function of the event sequence: no wall clock, no RPC, no randomness; times come from events.
 */
import type { Knex } from 'knex';
import type { EventType } from '../src/domain/events.js';
import type { RecordedEvent } from '../src/ledger/port.js';

/**
 * Where a projector's statements run: the runner's batch transaction (or a replay's). SQL uses
 * `?` placeholders, as with knex. Statements run in the order `raw` is called, also when the
 * caller sends the next before the previous has answered: a projector sends the statements that
 * need no answer in between together (one round trip on a pipelined connection). Over knex,
 * `inOrder` (in-order.ts) gives that order.
 */
export interface ProjectionTransaction {
  raw(sql: string, bindings?: readonly Knex.RawBinding[]): PromiseLike<unknown>;
}

export interface Projector {
  /** Stable name: the key of its checkpoint row and of its advisory locks. */
  readonly name: string;
  /** Bump to force a rebuild: the runner drops `tables` and projects the ledger again. */
  readonly version: number;
  /** The tables this projector owns in its schema (dropped on rebuild, compared by tests). */
  readonly tables: readonly string[];
  /**
   * Optional: the indexes of its schema (by name) that only the API's reads use, never this
   * projector's own statements. A replay drops them before it applies the ledger and builds them
   * after the last page, once, instead of inserting into them row by row.
   */
  readonly readerIndexes?: readonly string[];
  /**
   * The event types `handle` acts on; it ignores every other. A batch with none of them moves
   * no rows, so the runner does not open a transaction for it (its checkpoint follows later).
   */
  readonly eventTypes: ReadonlySet<EventType>;
  /**
   * Optional, for a projector that remembers what it has stored: false when `event`, though of
   * a handled type, would certainly change none of its rows (a document stored already). A batch
   * of such events gets no transaction either. Must answer from committed batches only.
   */
  changes?(event: RecordedEvent): boolean;
  /**
   * Optional: true for a read model no command's answer waits on as a rule and no client reads
   * in step with another (notices: trades and auctions are read beside the order they concern).
   * Its batches may then gather events for up to the engine's batch window while no wait of this
   * instance wants them: fewer, larger transactions, which leave the database and the cores to
   * the batches that someone awaits (BENCHMARKS.md, "Batches nobody waits for").
   */
  readonly gathers?: boolean;
  /** Optional: told once a batch and the checkpoint after it are committed. */
  committed?(events: readonly RecordedEvent[]): void;
  /** Creates the projector's tables in `schema`; idempotent. */
  migrate(db: Knex, schema: string): Promise<void>;
  /**
   * Applies a batch of events, in ledger order, inside the runner's transaction (which also
   * moves the checkpoint). Must ignore events whose type is not in `eventTypes`. The effect of a
   * batch must equal the effect of its events applied one by one, whatever the batch boundaries.
   */
  handle(
    trx: ProjectionTransaction,
    events: readonly RecordedEvent[],
    schema: string,
  ): Promise<void>;
}
