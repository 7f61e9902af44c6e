/**
 * Runs one projector on this instance: wait for leadership, then follow the ledger from the
 * stored checkpoint, applying batches until stopped or until leadership is lost.
 *
 * Each batch is one transaction: batch lock, the checkpoint row locked and compared with the
 * position this worker followed from, the projector's writes, the checkpoint moved. If the row
 * moved under us (a replay swapped the schema in, or another instance ran while we thought we
 * led), nothing is written and the worker resumes from the stored position instead: no event
 * is applied twice or skipped, whatever the timing. A failing batch rolls back and is retried
 * with backoff, forever: skipping an event would silently corrupt the read model.
 */
import type { Knex } from 'knex';
import type pg from 'pg';
import { STREAM_PREFIXES } from '../src/domain/events.js';
import type { Ledger, RecordedEvent, Subscription } from '../src/ledger/port.js';
import { inBatchTransaction } from './batch-transaction.js';
import { BatchReader } from './batches.js';
import { readCheckpoints, VersionChangedError } from './checkpoints.js';
import { leaderLockKey } from './locks.js';
import { requestLeadership, type Leadership } from '../src/postgres/leadership.js';
import type { Projector } from './projector.js';

export interface WorkerContext {
  ledger: Ledger;
  db: Knex;
  schema: string;
  /** Names this engine in checkpoint notices. */
  instance: string;
  connection: pg.ClientConfig;
  batchSize: number;
  publish(projector: string, position: string | null): void;
  report(err: unknown, projector: string): void;
}

type Outcome = 'applied' | 'moved' | 'abandoned';

const backoff = (attempt: number): number => Math.min(5000, 50 * 2 ** attempt);

export class ProjectorWorker {
  private stopped = false;
  private subscription: Subscription | null = null;
  private leadership: Leadership | null = null;
  private readonly wakers = new Set<() => void>();
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
      const leadership = requestLeadership(
        this.ctx.connection,
        leaderLockKey(schema, name),
        (err) => {
          if (!this.stopped) this.ctx.report(err, name);
          this.interrupt();
        },
      );
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
    let position = await this.storedPosition();
    for (let failures = 0; !this.stopped && !leadership.lost;) {
      const subscription = this.ctx.ledger.subscribe(position, { streamPrefixes: STREAM_PREFIXES });
      this.subscription = subscription;
      try {
        const reader = new BatchReader(subscription);
        for (;;) {
          const batch = await reader.next(this.ctx.batchSize);
          if (batch.length === 0) {
            // Closed by stop() or a lost leadership; otherwise the ledger ended it: resubscribe.
            if (this.stopped || leadership.lost) break;
            throw new Error('the ledger subscription ended');
          }
          const outcome = await this.applyWithRetry(batch, position, leadership);
          if (outcome === 'abandoned') break;
          if (outcome === 'moved') {
            position = await this.storedPosition();
            break;
          }
          position = batch[batch.length - 1]!.position;
          this.ctx.publish(this.projector.name, position);
          failures = 0;
        }
      } catch (err) {
        if (err instanceof VersionChangedError) throw err;
        if (this.stopped || leadership.lost) break;
        this.ctx.report(err, this.projector.name);
        await this.sleep(backoff(failures++));
      } finally {
        this.subscription = null;
        await subscription.close();
      }
    }
  }

  private async storedPosition(): Promise<string | null> {
    const row = (await readCheckpoints(this.ctx.db, this.ctx.schema)).get(this.projector.name);
    if (row?.version !== this.projector.version) {
      throw new VersionChangedError(this.projector.name, this.projector.version, row?.version);
    }
    this.ctx.publish(this.projector.name, row.position);
    return row.position;
  }

  private async applyWithRetry(
    batch: readonly RecordedEvent[],
    from: string | null,
    leadership: Leadership,
  ): Promise<Outcome> {
    for (let attempt = 0; ; attempt++) {
      if (this.stopped || leadership.lost) return 'abandoned';
      try {
        return await this.apply(batch, from);
      } catch (err) {
        if (err instanceof VersionChangedError) throw err;
        this.ctx.report(err, this.projector.name);
        await this.sleep(backoff(attempt));
      }
    }
  }

  private apply(batch: readonly RecordedEvent[], from: string | null): Promise<Outcome> {
    const { db, schema, instance } = this.ctx;
    const { name, version } = this.projector;
    // Batch lock first, before anything names a table: during a swap it waits, then the
    // checkpoint lock resolves the new schema.
    return inBatchTransaction(db, schema, name, async (trx, row) => {
      if (row?.version !== version) throw new VersionChangedError(name, version, row?.version);
      if (row.position !== from) return 'moved';
      await this.projector.handle(trx, batch, schema);
      await trx.commit(batch[batch.length - 1]!.position, instance);
      return 'applied';
    });
  }

  /** Backoff that `stop()` and a lost leadership cut short. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }
}
