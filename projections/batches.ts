/**
 * Cuts a catch-up subscription into batches: wait for one event, then take whatever else the
 * subscription can hand over without waiting (up to `max`). Under load batches grow, which is
 * what lets a projector keep up; when idle, a single event is applied at once (low lag). A
 * projector in no hurry may ask for `more` events to join a batch it holds.
 */
import type { RecordedEvent, Subscription } from '../src/ledger/port.js';

const IDLE = Symbol('idle');
const GAVE_UP = Symbol('gave up');

/** Resolves after the current microtasks: anything already buffered settles before it. */
function idle(): Promise<typeof IDLE> {
  return new Promise((resolve) => setImmediate(() => resolve(IDLE)));
}

export class BatchReader {
  private readonly iterator: AsyncIterator<RecordedEvent>;
  /** A `next()` that had not settled when the previous batch was cut. */
  private pending: Promise<IteratorResult<RecordedEvent>> | null = null;
  private done = false;

  constructor(subscription: Subscription) {
    this.iterator = subscription[Symbol.asyncIterator]();
  }

  /** True once the subscription has ended (closed): every later batch is []. */
  get ended(): boolean {
    return this.done;
  }

  /** The next batch, or [] once the subscription has ended (closed). */
  async next(max: number): Promise<RecordedEvent[]> {
    if (this.done) return [];
    const first = await this.take();
    if (first.done) return this.end([]);
    return this.withBuffered([first.value], max);
  }

  /**
   * The events that come before `until` settles, at most `max`: the first one to come, then
   * whatever else is buffered. [] when `until` settles first (the wait for the next event is
   * kept for the next call) or the subscription ends.
   */
  async more(max: number, until: Promise<unknown>): Promise<RecordedEvent[]> {
    if (this.done || max <= 0) return [];
    const next = this.take();
    const first = await Promise.race([next, until.then((): typeof GAVE_UP => GAVE_UP)]);
    if (first === GAVE_UP) {
      this.pending = next;
      return [];
    }
    if (first.done) return this.end([]);
    return this.withBuffered([first.value], max);
  }

  /** `batch` and whatever else the subscription hands over without waiting, up to `max`. */
  private async withBuffered(batch: RecordedEvent[], max: number): Promise<RecordedEvent[]> {
    while (batch.length < max) {
      const next = this.take();
      const result = await Promise.race([next, idle()]);
      if (result === IDLE) {
        this.pending = next;
        break;
      }
      if (result.done) return this.end(batch);
      batch.push(result.value);
    }
    return batch;
  }

  private take(): Promise<IteratorResult<RecordedEvent>> {
    const next = this.pending ?? this.iterator.next();
    this.pending = null;
    return next;
  }

  private end(batch: RecordedEvent[]): RecordedEvent[] {
    this.done = true;
    return batch;
  }
}
