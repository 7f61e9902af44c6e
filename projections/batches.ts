/**
 * Cuts a catch-up subscription into batches: wait for one event, then take whatever else the
 * subscription can hand over without waiting (up to `max`). Under load batches grow, which is
 * what lets a projector keep up; when idle, a single event is applied at once (low lag).
 */
import type { RecordedEvent, Subscription } from '../src/ledger/port.js';

const IDLE = Symbol('idle');

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

  /** The next batch, or [] once the subscription has ended (closed). */
  async next(max: number): Promise<RecordedEvent[]> {
    if (this.done) return [];
    const first = await this.take();
    if (first.done) return this.end([]);
    const batch = [first.value];
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
