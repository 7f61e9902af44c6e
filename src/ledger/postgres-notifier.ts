/**
 * One LISTEN connection per ledger instance, shared by all its subscriptions: appends
 * `pg_notify` in their transaction, and every notification wakes the waiting subscriptions.
 *
 * It only makes subscriptions faster. A notification can arrive while the writer's transaction
 * is not yet readable (an older transaction is still running): each names its transaction, so a
 * subscription knows of an announced append its read did not reach, and looks again soon.
 * Notifications sent while the connection is down are lost, so subscriptions poll as well. A
 * lost connection is re-opened with backoff, and every (re)connection wakes everyone once, to
 * pick up what was missed meanwhile.
 */
import type pg from 'pg';

export class Notifier {
  private changes = 0;
  private announced = 0n;
  private readonly listeners = new Set<() => void>();
  /** Hands the LISTEN connection back (destroyed: it must not serve other queries still listening). */
  private dropConnection: (() => void) | undefined;
  private started = false;
  private closed = false;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Changes whenever something may have been appended; compare before and after a read. */
  get generation(): number {
    return this.changes;
  }

  /**
   * The highest transaction id an append announced (0 before any): committed, since PostgreSQL
   * delivers a notification when its sender commits.
   */
  get announcedTransaction(): bigint {
    return this.announced;
  }

  /** Calls `listener` on every change until the returned function is called. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    void this.connect();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.dropConnection?.();
    this.dropConnection = undefined;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      this.reconnectLater(error);
      return;
    }
    let released = false;
    const drop = () => {
      if (released) return;
      released = true;
      client.release(true);
    };
    const fail = (error: unknown) => {
      if (released) return;
      drop();
      if (this.dropConnection === drop) this.dropConnection = undefined;
      this.reconnectLater(error);
    };
    client.on('error', fail);
    client.on('notification', (message) => {
      if (message.channel !== this.channel) return;
      // A writer of an older version announces no transaction.
      if (message.payload && /^\d+$/.test(message.payload)) {
        const transaction = BigInt(message.payload);
        if (transaction > this.announced) this.announced = transaction;
      }
      this.changed();
    });
    try {
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
    } catch (error) {
      fail(error);
      return;
    }
    if (this.closed) {
      drop();
      return;
    }
    this.dropConnection = drop;
    this.failures = 0;
    this.changed();
  }

  private reconnectLater(error: unknown): void {
    this.changed();
    if (this.closed) return;
    this.onError(error);
    this.failures += 1;
    const delay = Math.min(100 * 2 ** this.failures, 5_000);
    this.retry = setTimeout(() => void this.connect(), delay);
  }

  private changed(): void {
    this.changes += 1;
    for (const listener of [...this.listeners]) listener();
  }
}
