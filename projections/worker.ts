/**
 * Runs one projector on this instance: wait for leadership, then follow the ledger from the
 * stored checkpoint, applying batches until stopped or until leadership is lost.
 *
 * Each batch is one transaction: batch lock, the checkpoint row locked and compared with the
 * position this worker last stored, the projector's writes, the checkpoint moved. If the row
 * moved under us (a replay swapped the schema in, or another instance ran while we thought we
 * led), nothing is written and the worker resumes from the stored position instead: no event
 * is applied twice or skipped, whatever the timing. A failing batch rolls back and is retried
 * with backoff, forever: skipping an event would silently corrupt the read model.
 *
 * A batch without any event type the projector handles changes none of its rows, so it gets
 * no transaction: under an order stream the quotes, trades and auctions projectors would
 * otherwise pay three round trips per batch for nothing. The worker follows past such events
 * in memory (read-your-writes waits see that position at once) and stores the checkpoint with
 * its next real batch, or on its own once the ledger has been quiet for a moment or the
 * stored position has trailed for too long. A restart in between re-reads those events and
 * passes over them again: the read model is the same either way.
 *
 * A projector that `gathers` (no command's answer waits on it as a rule) holds a batch smaller
 * than the batch size open for up to the batch window, taking in the events that come
 * meanwhile: under a stream of orders one transaction then covers many instead of each. A wait
 * of this instance (`want`) for a position past what the worker has applied closes the window
 * as soon as the batch reaches that position; a wait on another instance learns of the batch at
 * most one window later.
 */
import type { Knex } from 'knex';
import { STREAM_PREFIXES, type EventType } from '../src/domain/events.js';
import type { Ledger, RecordedEvent, Subscription } from '../src/ledger/port.js';
import { inBatchTransaction } from './batch-transaction.js';
import { BatchReader } from './batches.js';
import { readCheckpoints, VersionChangedError } from './checkpoints.js';
import type { Leadership, RequestLeadership } from '../src/ledger/leadership.js';
import { leaderLockKey } from './locks.js';
import type { Projector } from './projector.js';

export interface WorkerContext {
  ledger: Ledger;
  db: Knex;
  schema: string;
  /** Names this engine in checkpoint notices. */
  instance: string;
  requestLeadership: RequestLeadership;
  batchSize: number;
  /** How long a projector that `gathers` may hold a batch open for more events (ms). */
  batchWindowMs: number;
  publish(projector: string, position: string | null): void;
  report(err: unknown, projector: string): void;
}

type Outcome = 'applied' | 'moved' | 'abandoned';

const backoff = (attempt: number): number => Math.min(5000, 50 * 2 ** attempt);

/** How long the ledger stays quiet before a checkpoint trailing the followed position is stored. */
const QUIET_STORE_MS = 50;
/** How long a checkpoint may trail the followed position while batches keep coming. */
const MAX_TRAIL_MS = 2_000;

const QUIET = Symbol('quiet');

export class ProjectorWorker {
  private stopped = false;
  private subscription: Subscription | null = null;
  private leadership: Leadership | null = null;
  private readonly wakers = new Set<() => void>();
  /** The furthest position a wait of this instance has asked for (see `want`). */
  private wanted: string | null = null;
  /** What a want wakes: the window of a gathering batch. */
  private readonly wantWakers = new Set<() => void>();
  private readonly running: Promise<void>;

  constructor(
    private readonly projector: Projector,
    private readonly ctx: WorkerContext,
  ) {
    this.running = this.run();
  }

  /** True while this instance holds the projector's leader lock. */
  get leading(): boolean {
    return this.leadership?.held ?? false;
  }

  /**
   * A wait of this instance wants `position` projected: a batch gathering events goes as soon
   * as it holds it.
   */
  want(position: string): void {
    const { comparePositions } = this.ctx.ledger;
    if (this.wanted === null || comparePositions(position, this.wanted) > 0) this.wanted = position;
    for (const wake of this.wantWakers) wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.interrupt();
    // A standby gives up its wait for the lock; a leader's batch in flight finishes (commit or
    // rollback) before its lock goes.
    if (this.leadership && !this.leadership.held) void this.leadership.release();
    await this.running;
  }

  private interrupt(): void {
    void this.subscription?.close();
    for (const wake of this.wakers) wake();
  }

  private async run(): Promise<void> {
    const { schema } = this.ctx;
    const name = this.projector.name;
    for (let attempt = 0; !this.stopped;) {
      const leadership = this.ctx.requestLeadership(leaderLockKey(schema, name), (err) => {
        if (!this.stopped) this.ctx.report(err, name);
        this.interrupt();
      });
      this.leadership = leadership;
      try {
        await leadership.acquired;
        if (this.stopped) break;
        attempt = 0;
        await this.lead(leadership);
      } catch (err) {
        if (this.stopped) break;
        this.ctx.report(err, name);
        // Another version owns the tables now: stand down and leave them to it.
        if (err instanceof VersionChangedError) break;
        await this.sleep(backoff(attempt++));
      } finally {
        this.leadership = null;
        await leadership.release();
      }
    }
  }

  private async lead(leadership: Leadership): Promise<void> {
    /** Where the checkpoint row stands: a batch's transaction expects to find it there. */
    let stored = await this.storedPosition();
    /** The last event this worker has taken into account (ahead of `stored` after skips). */
    let followed = stored;
    /** When `followed` first went ahead of `stored` (ms, performance clock). */
    let trailingSince = 0;
    const { eventTypes, name } = this.projector;

    for (let failures = 0; !this.stopped && !leadership.lost;) {
      const subscription = this.ctx.ledger.subscribe(followed, { streamPrefixes: STREAM_PREFIXES });
      this.subscription = subscription;
      try {
        const reader = new BatchReader(subscription);
        for (;;) {
          const next = reader.next(this.ctx.batchSize);
          let batch = followed === stored ? await next : await this.orQuiet(next);
          if (batch === QUIET) {
            // Ahead of `stored`, so never null.
            const outcome = await this.applyWithRetry([], stored, followed!, leadership);
            if (outcome === 'abandoned') break;
            if (outcome === 'moved') {
              stored = followed = await this.storedPosition();
              break;
            }
            stored = followed;
            batch = await next;
          }
          if (batch.length === 0) {
            // Closed by stop() or a lost leadership; otherwise the ledger ended it: resubscribe.
            if (this.stopped || leadership.lost) break;
            throw new Error('the ledger subscription ended');
          }
          const relevant = batch.some(
            (e) => eventTypes.has(e.type as EventType) && (this.projector.changes?.(e) ?? true),
          );
          if (relevant && this.projector.gathers) {
            batch = await this.gather(reader, batch, followed, leadership);
          }
          const last = batch[batch.length - 1]!.position;
          if (!relevant && followed === stored) trailingSince = performance.now();
          if (relevant || performance.now() - trailingSince >= MAX_TRAIL_MS) {
            const outcome = await this.applyWithRetry(
              relevant ? batch : [],
              stored,
              last,
              leadership,
            );
            if (outcome === 'abandoned') break;
            if (outcome === 'moved') {
              stored = followed = await this.storedPosition();
              break;
            }
            stored = last;
            if (relevant) this.projector.committed?.(batch);
          }
          followed = last;
          this.ctx.publish(name, followed);
          failures = 0;
        }
      } catch (err) {
        if (err instanceof VersionChangedError) throw err;
        if (this.stopped || leadership.lost) break;
        this.ctx.report(err, name);
        await this.sleep(backoff(failures++));
      } finally {
        this.subscription = null;
        await subscription.close();
      }
    }
  }

  /**
   * `batch` and the events that join it within the batch window, up to the batch size; it goes
   * early once it holds the furthest position a wait of this instance wants past `applied`.
   */
  private async gather(
    reader: BatchReader,
    batch: RecordedEvent[],
    applied: string | null,
    leadership: Leadership,
  ): Promise<RecordedEvent[]> {
    const { batchSize, batchWindowMs, ledger } = this.ctx;
    const closes = performance.now() + batchWindowMs;
    for (;;) {
      const last = batch[batch.length - 1]!.position;
      const wanted = this.wanted;
      const awaited =
        wanted !== null &&
        (applied === null || ledger.comparePositions(wanted, applied) > 0) &&
        ledger.comparePositions(wanted, last) <= 0;
      const left = closes - performance.now();
      const full = batch.length >= batchSize || reader.ended;
      if (awaited || left <= 0 || full || this.stopped || leadership.lost) return batch;
      const window = this.timer(left, { orWant: true });
      try {
        batch = batch.concat(await reader.more(batchSize - batch.length, window.ended));
      } finally {
        window.end();
      }
    }
  }

  /** The next batch, or QUIET if none comes within QUIET_STORE_MS (or the worker is stopping). */
  private async orQuiet(next: Promise<RecordedEvent[]>): Promise<RecordedEvent[] | typeof QUIET> {
    const quiet = this.sleep(QUIET_STORE_MS).then((): typeof QUIET => QUIET);
    return Promise.race([next, quiet]);
  }

  private async storedPosition(): Promise<string | null> {
    const row = (await readCheckpoints(this.ctx.db, this.ctx.schema)).get(this.projector.name);
    if (row?.version !== this.projector.version) {
      throw new VersionChangedError(this.projector.name, this.projector.version, row?.version);
    }
    this.ctx.publish(this.projector.name, row.position);
    return row.position;
  }

  /** Applies `batch` (possibly none) and moves the checkpoint from `from` to `to`. */
  private async applyWithRetry(
    batch: readonly RecordedEvent[],
    from: string | null,
    to: string,
    leadership: Leadership,
  ): Promise<Outcome> {
    for (let attempt = 0; ; attempt++) {
      if (this.stopped || leadership.lost) return 'abandoned';
      try {
        return await this.apply(batch, from, to);
      } catch (err) {
        if (err instanceof VersionChangedError) throw err;
        this.ctx.report(err, this.projector.name);
        await this.sleep(backoff(attempt));
      }
    }
  }

  private apply(
    batch: readonly RecordedEvent[],
    from: string | null,
    to: string,
  ): Promise<Outcome> {
    const { db, schema, instance } = this.ctx;
    const { name, version } = this.projector;
    return inBatchTransaction(
      db,
      { schema, projector: name, version, from, to, instance },
      async (trx) => {
        if (batch.length > 0) await this.projector.handle(trx, batch, schema);
      },
    );
  }

  /** Backoff that `stop()` and a lost leadership cut short. */
  private sleep(ms: number): Promise<void> {
    return this.timer(ms).ended;
  }

  /**
   * Ends after `ms`, at `end()`, or when the worker is stopped or loses its leadership; with
   * `orWant`, also at a want.
   */
  private timer(ms: number, { orWant = false } = {}): { ended: Promise<void>; end(): void } {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = () => {
        clearTimeout(timer);
        this.wakers.delete(end);
        this.wantWakers.delete(end);
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.wakers.add(end);
      if (orWant) this.wantWakers.add(end);
    });
    return { ended, end };
  }
}
