/**
 * A catch-up subscription to the Postgres ledger: pages through the readable all-stream from a
 * checkpoint, then waits for a notification or the poll interval and reads on. An append
 * announced but not yet readable (an older transaction of any kind still runs, and its end is
 * announced to no one) is looked for again after a short, growing wait instead: otherwise a
 * read-your-writes wait behind a projection's or a quote's transaction would last the whole poll
 * interval. Each event is delivered once, in all-stream order, because the cursor only moves
 * over rows that no later commit can precede (see postgres-read.ts). Read failures (a dropped
 * connection, a restarted server) are reported and retried with backoff from the cursor, so the
 * subscription outlives them.
 */
import type { Notifier } from './postgres-notifier.js';
import type { SharedPageRead } from './postgres-shared-pages.js';
import { decodePosition, START, toRecordedEvent, type PostgresPosition } from './postgres-rows.js';
import type { RecordedEvent, Subscription } from './port.js';

export interface SubscriptionContext {
  readPage: SharedPageRead;
  notifier: Notifier;
  onError: (error: unknown) => void;
  /** How long to wait for a notification before reading anyway. */
  pollIntervalMs: number;
  pageSize: number;
}

/** The first wait for an announced append held back by an older transaction; doubled after. */
const HELD_BACK_FIRST_WAIT_MS = 1;

export class PostgresSubscription implements Subscription {
  private closed = false;
  private wake: (() => void) | undefined;
  private readonly events: AsyncGenerator<RecordedEvent, void, undefined>;

  constructor(
    private readonly context: SubscriptionContext,
    after: string | null,
    private readonly streamPrefixes: readonly string[] | undefined,
    private readonly onEnd: () => void,
  ) {
    this.events = this.run(after === null ? START : decodePosition(after));
  }

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    return this.events;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.events.return(undefined);
    // A generator closed before its first `next()` never runs its `finally`.
    this.onEnd();
  }

  private async *run(from: PostgresPosition): AsyncGenerator<RecordedEvent, void, undefined> {
    const { readPage, notifier, onError, pollIntervalMs, pageSize } = this.context;
    let cursor = from;
    let failures = 0;
    let heldBackWait = HELD_BACK_FIRST_WAIT_MS;
    try {
      while (!this.closed) {
        // Taken before the read: a notification during the read must not be slept through.
        const generation = notifier.generation;
        let page;
        try {
          page = await readPage(cursor, pageSize, this.streamPrefixes, generation);
          failures = 0;
        } catch (error) {
          if (this.closed) return;
          onError(error);
          failures += 1;
          await this.sleep(Math.min(100 * 2 ** failures, 5_000));
          continue;
        }
        for (const row of page) {
          if (this.closed) return;
          cursor = {
            transactionId: BigInt(row.transaction_id),
            globalPosition: BigInt(row.global_position),
          };
          if (row.selected) yield toRecordedEvent(row);
        }
        if (page.length > 0) heldBackWait = HELD_BACK_FIRST_WAIT_MS;
        if (page.length === pageSize) continue;
        if (notifier.announcedTransaction > cursor.transactionId) {
          await this.sleep(heldBackWait, generation);
          heldBackWait = Math.min(heldBackWait * 2, pollIntervalMs);
        } else {
          await this.sleep(pollIntervalMs, generation);
        }
      }
    } finally {
      this.onEnd();
    }
  }

  /** Waits `ms`, or less if the ledger changes after `generation` or the subscription closes. */
  private sleep(ms: number, generation?: number): Promise<void> {
    const { notifier } = this.context;
    return new Promise((resolve) => {
      if (this.closed || (generation !== undefined && notifier.generation !== generation)) {
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        stopListening();
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      const stopListening = generation === undefined ? () => undefined : notifier.onChange(done);
      this.wake = done;
    });
  }
}
