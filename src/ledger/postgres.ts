/**
 * The Postgres ledger adapter (the default; DESIGN.md §3).
 *
 * Appends go through group commit (postgres-group-commit.ts); reads only see rows no later commit
 * can precede (postgres-read.ts); subscriptions page on from their cursor, woken by LISTEN/NOTIFY
 * and by a poll (postgres-subscription.ts). Its tables are the store migrations' (the service's
 * start-up pass applies them; MIGRATIONS.md describes them): they must exist before it is made.
 *
 * Readers wait for the oldest running transaction of the whole cluster, so a transaction left
 * open anywhere stalls every subscription. The ledger itself never keeps one open across round
 * trips (each batch is one autocommitted statement); for everyone else the server must set
 * `idle_in_transaction_session_timeout` (src/postgres/embedded.ts sets 60 s; set it on an
 * external server too), and other writers (projectors) should keep their transactions short.
 */
import type pg from 'pg';
import { GroupCommitter, type PreparedEvent } from './postgres-group-commit.js';
import { Notifier } from './postgres-notifier.js';
import { readBacklog, readPage } from './postgres-read.js';
import {
  comparePositions,
  decodePosition,
  EVENT_COLUMNS,
  START,
  toRecordedEvent,
  type EventRow,
} from './postgres-rows.js';
import { sharedPageReads, type SharedPageRead } from './postgres-shared-pages.js';
import { PostgresSubscription } from './postgres-subscription.js';
import type {
  AppendResult,
  Backlog,
  ExpectedRevision,
  Ledger,
  NewEvent,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from './port.js';

export interface PostgresLedgerOptions {
  /**
   * Owned by the caller, who ends it after `close()` and handles its 'error' events. It must
   * have room for `maxConcurrentBatches` writers, one LISTEN connection and the readers.
   */
  pool: pg.Pool;
  /** NOTIFY channel that wakes subscriptions. Default `batchbook_ledger`. */
  notifyChannel?: string;
  /** Failures the ledger recovers from by itself (a subscription's read, the LISTEN connection). */
  onError?: (error: unknown) => void;
  /** Append transactions in flight at once. Default 2. */
  maxConcurrentBatches?: number;
  /** How long a subscription waits for a notification before reading anyway. Default 250 ms. */
  pollIntervalMs?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_BATCH_EVENTS = 2_000;
const SUBSCRIPTION_PAGE = 500;

const READ_STREAM = `SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE stream_id = $1 ORDER BY revision`;

export function createPostgresLedger(options: PostgresLedgerOptions): PostgresLedger {
  return new PostgresLedger(options);
}

export class PostgresLedger implements Ledger {
  private readonly pool: pg.Pool;
  private readonly committer: GroupCommitter;
  private readonly notifier: Notifier;
  private readonly onError: (error: unknown) => void;
  private readonly pollIntervalMs: number;
  private readonly readSharedPage: SharedPageRead;
  private readonly subscriptions = new Set<PostgresSubscription>();
  private closed = false;

  constructor(options: PostgresLedgerOptions) {
    this.pool = options.pool;
    const notifyChannel = options.notifyChannel ?? 'batchbook_ledger';
    this.onError = options.onError ?? ((error) => console.warn('ledger:', error));
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.committer = new GroupCommitter({
      pool: this.pool,
      notifyChannel,
      maxConcurrentBatches: options.maxConcurrentBatches ?? 2,
      maxBatchEvents: MAX_BATCH_EVENTS,
    });
    this.notifier = new Notifier(this.pool, notifyChannel, this.onError);
    this.readSharedPage = sharedPageReads(this.pool);
  }

  async append(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    if (this.closed) throw new Error('ledger is closed');
    if (stream.length === 0) throw new RangeError('append: empty stream name');
    if (events.length === 0) throw new RangeError(`append to ${stream}: no events`);
    if (typeof expected === 'bigint' && expected < 0n) {
      throw new RangeError(`append to ${stream}: negative expected revision ${expected}`);
    }
    return this.committer.append({ stream, events: events.map(prepare), expected });
  }

  async readStream(stream: string): Promise<RecordedEvent[]> {
    const { rows } = await this.pool.query<EventRow>({
      name: 'ledger-read-stream',
      text: READ_STREAM,
      values: [stream],
    });
    return rows.map(toRecordedEvent);
  }

  async readAll(after: string | null, batch: number): Promise<RecordedEvent[]> {
    if (!Number.isInteger(batch) || batch < 1) throw new RangeError(`readAll: batch ${batch}`);
    const rows = await readPage(this.pool, after === null ? START : decodePosition(after), batch);
    return rows.map(toRecordedEvent);
  }

  async backlog(after: string | null, cap: number): Promise<Backlog> {
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`backlog: cap ${cap}`);
    return readBacklog(this.pool, after === null ? START : decodePosition(after), cap);
  }

  subscribe(after: string | null, options: SubscribeOptions = {}): Subscription {
    if (this.closed) throw new Error('ledger is closed');
    this.notifier.start();
    const subscription: PostgresSubscription = new PostgresSubscription(
      {
        readPage: this.readSharedPage,
        notifier: this.notifier,
        onError: this.onError,
        pollIntervalMs: this.pollIntervalMs,
        pageSize: SUBSCRIPTION_PAGE,
      },
      after,
      options.streamPrefixes,
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  comparePositions(a: string, b: string): number {
    return comparePositions(a, b);
  }

  /** Answers the appends already made, ends the subscriptions; leaves the pool to its owner. */
  async close(): Promise<void> {
    this.closed = true;
    await this.committer.drain();
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    this.notifier.close();
  }
}

/** Validates and serialises one event up front, so a bad one fails only its own caller. */
function prepare(event: NewEvent): PreparedEvent {
  if (!UUID.test(event.id)) throw new RangeError(`event id is not a UUID: ${event.id}`);
  if (!Number.isInteger(event.version)) throw new RangeError(`event version ${event.version}`);
  const data = JSON.stringify(event.data);
  if (data === undefined) throw new TypeError(`event ${event.id}: data is not JSON`);
  return {
    // Postgres prints UUIDs in lower case; ids are compared as text.
    id: event.id.toLowerCase(),
    type: event.type,
    version: event.version,
    data,
    metadata: JSON.stringify(event.metadata ?? {}),
  };
}
