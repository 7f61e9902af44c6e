/**
 * The EventStoreDB ledger adapter (DESIGN.md §3), over `@eventstore/db-client` v6.
 *
 * - Positions are the full `{commit, prepare}` pair, written `"<commit>:<prepare>"`: resuming from
 *   the commit position alone can skip the other events of a multi-event write.
 * - Subscriptions are catch-up `subscribeToAll` with a stream-prefix filter, re-opened from the
 *   last delivered position when they drop. Never persistent subscriptions: they do not keep order.
 * - The port's `version` and `metadata` travel in the event's metadata envelope.
 * - Needs EventStoreDB 22.6 or later, which reports each event's position on stream reads.
 */
import {
  ANY,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  streamNameFilter,
  excludeSystemEvents,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type JSONType,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type Backlog,
  type ExpectedRevision,
  type Ledger,
  type NewEvent,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from './port.js';

export interface EventStoreLedgerOptions {
  /** e.g. `esdb://localhost:2113?tls=false` */
  connectionString: string;
  /** Failures a subscription recovers from by itself (it re-subscribes). */
  onError?: (error: unknown) => void;
}

/** What an event's metadata holds: the port's schema version and metadata. */
interface Envelope {
  version: number;
  metadata: Record<string, unknown>;
}

type StoredEvent = NonNullable<ResolvedEvent['event']>;

export function createEventStoreLedger(options: EventStoreLedgerOptions): EventStoreLedger {
  return new EventStoreLedger(options);
}

export class EventStoreLedger implements Ledger {
  private readonly client: EventStoreDBClient;
  private readonly onError: (error: unknown) => void;
  private readonly subscriptions = new Set<EventStoreSubscription>();

  constructor(options: EventStoreLedgerOptions) {
    this.client = EventStoreDBClient.connectionString(options.connectionString);
    this.onError = options.onError ?? ((error) => console.warn('ledger:', error));
  }

  /**
   * Reads the stream first: the server's own idempotence cannot say whether anything was
   * written, and only covers a retry with the same expected revision. Events already in the
   * stream are dropped here; the rest are appended under the caller's expected revision, which
   * the server checks atomically, so a writer racing in between still gets a conflict.
   */
  async append(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError(`append to ${stream}: no events`);
    if (typeof expected === 'bigint' && expected < 0n) {
      throw new RangeError(`append to ${stream}: negative expected revision ${expected}`);
    }
    const stored = await this.readStored(stream);
    const byId = new Map(stored.map((event) => [event.id.toLowerCase(), event]));
    const fresh: NewEvent[] = [];
    const seen = new Set<string>();
    for (const event of events) {
      const id = event.id.toLowerCase();
      if (byId.has(id) || seen.has(id)) continue;
      seen.add(id);
      fresh.push(event);
    }
    if (fresh.length === 0) {
      const last = events
        .map((event) => byId.get(event.id.toLowerCase())!)
        .reduce((a, b) => (b.revision > a.revision ? b : a));
      return {
        nextRevision: stored.at(-1)!.revision,
        position: encodePosition(positionOf(last)),
        written: false,
      };
    }
    try {
      const result = await this.client.appendToStream(stream, fresh.map(toEventData), {
        expectedRevision: toExpectedRevision(expected),
      });
      return {
        nextRevision: result.nextExpectedRevision,
        position: await this.positionAt(stream, result.nextExpectedRevision, result.position),
        written: true,
      };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion === NO_STREAM ? -1n : error.actualVersion;
        throw new WrongExpectedRevisionError(stream, expected, actual);
      }
      throw error;
    }
  }

  async readStream(stream: string): Promise<RecordedEvent[]> {
    return (await this.readStored(stream)).map(toRecordedEvent);
  }

  /**
   * `readAll` from a position includes the event at that position, and system events are
   * skipped here: both make a page shorter than asked, so read on until it is full or the
   * all-stream ends.
   */
  async readAll(after: string | null, batch: number): Promise<RecordedEvent[]> {
    if (!Number.isInteger(batch) || batch < 1) throw new RangeError(`readAll: batch ${batch}`);
    const found: RecordedEvent[] = [];
    let cursor = after === null ? null : decodePosition(after);
    while (found.length < batch) {
      const wanted = batch - found.length + 1;
      let seen = 0;
      const page = this.client.readAll({
        fromPosition: cursor ?? START,
        maxCount: wanted,
        direction: FORWARDS,
        resolveLinkTos: false,
      });
      for await (const resolved of page) {
        seen += 1;
        const event = resolved.event;
        if (!event) continue;
        if (cursor && comparePosition(event.position, cursor) <= 0) continue;
        cursor = event.position;
        if (!isSystemEvent(event) && found.length < batch) found.push(toRecordedEvent(event));
      }
      if (seen < wanted) break;
    }
    return found;
  }

  /** EventStoreDB cannot leave the payloads out: the events are read and counted. */
  async backlog(after: string | null, cap: number): Promise<Backlog> {
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`backlog: cap ${cap}`);
    const ahead = await this.readAll(after, cap);
    return { events: ahead.length, oldest: ahead[0]?.recordedAt ?? null };
  }

  subscribe(after: string | null, options: SubscribeOptions = {}): Subscription {
    const subscription: EventStoreSubscription = new EventStoreSubscription(
      this.client,
      after === null ? null : decodePosition(after),
      options.streamPrefixes,
      this.onError,
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  comparePositions(a: string, b: string): number {
    return comparePosition(decodePosition(a), decodePosition(b));
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.client.dispose();
  }

  private async readStored(stream: string): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, {
        fromRevision: START,
        direction: FORWARDS,
        resolveLinkTos: false,
      })) {
        if (resolved.event) events.push(resolved.event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  /**
   * The position of the event at `revision`, read back: the append result's position belongs
   * to the write as a whole, while checkpoints are compared with single events' positions.
   */
  private async positionAt(stream: string, revision: bigint, fallback?: Position): Promise<string> {
    for await (const resolved of this.client.readStream(stream, {
      fromRevision: revision,
      maxCount: 1,
      direction: FORWARDS,
    })) {
      if (resolved.event?.position) return encodePosition(resolved.event.position);
    }
    if (!fallback) throw new Error(`EventStoreDB gave no position for ${stream}@${revision}`);
    return encodePosition(fallback);
  }
}

/**
 * A catch-up subscription to $all that survives drops: each (re)subscription starts after the
 * last position delivered, and anything at or before it is skipped, so each event comes once.
 */
class EventStoreSubscription implements Subscription {
  private closed = false;
  private current: AllStreamSubscription | undefined;
  private wake: (() => void) | undefined;
  private readonly events: AsyncGenerator<RecordedEvent, void, undefined>;

  constructor(
    private readonly client: EventStoreDBClient,
    from: Position | null,
    private readonly streamPrefixes: readonly string[] | undefined,
    private readonly onError: (error: unknown) => void,
    private readonly onEnd: () => void,
  ) {
    this.events = this.run(from);
  }

  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    return this.events;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.current?.unsubscribe().catch(() => undefined);
    await this.events.return(undefined);
    this.onEnd();
  }

  private async *run(from: Position | null): AsyncGenerator<RecordedEvent, void, undefined> {
    let cursor = from;
    let failures = 0;
    try {
      while (!this.closed) {
        const subscription = this.client.subscribeToAll({
          fromPosition: cursor ?? START,
          resolveLinkTos: false,
          filter: this.streamPrefixes
            ? streamNameFilter({ prefixes: [...this.streamPrefixes] })
            : excludeSystemEvents(),
        });
        this.current = subscription;
        try {
          for await (const resolved of subscription as AsyncIterable<AllStreamResolvedEvent>) {
            if (this.closed) return;
            failures = 0;
            const event = resolved.event;
            if (!event || isSystemEvent(event)) continue;
            if (cursor && comparePosition(event.position, cursor) <= 0) continue;
            cursor = event.position;
            yield toRecordedEvent(event);
          }
        } catch (error) {
          if (this.closed) return;
          this.onError(error);
        } finally {
          await subscription.unsubscribe().catch(() => undefined);
        }
        if (this.closed) return;
        // Ended or failed without being closed: re-subscribe after a pause that grows.
        failures += 1;
        await this.sleep(Math.min(100 * 2 ** failures, 5_000));
      }
    } finally {
      this.onEnd();
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

function toExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'noStream':
      return NO_STREAM;
    case 'any':
      return ANY;
    case 'streamExists':
      return STREAM_EXISTS;
    default:
      return expected;
  }
}

function toEventData(event: NewEvent) {
  const envelope: Envelope = { version: event.version, metadata: event.metadata ?? {} };
  return jsonEvent({
    id: event.id,
    type: event.type,
    data: event.data as JSONType,
    metadata: envelope as unknown as JSONType,
  });
}

function toRecordedEvent(event: StoredEvent): RecordedEvent {
  if (!event.isJson) throw new Error(`event ${event.id} in ${event.streamId} is not JSON`);
  const envelope = event.metadata as Partial<Envelope> | undefined;
  return {
    id: event.id,
    stream: event.streamId,
    revision: event.revision,
    position: encodePosition(positionOf(event)),
    type: event.type,
    version: envelope?.version ?? 1,
    data: event.data,
    metadata: envelope?.metadata ?? {},
    recordedAt: event.created,
  };
}

function positionOf(event: StoredEvent): Position {
  if (!event.position) {
    throw new Error('EventStoreDB did not report event positions: version 22.6 or later is needed');
  }
  return event.position;
}

/** System streams and events (`$`-prefixed) are the server's, not the ledger's. */
function isSystemEvent(event: StoredEvent): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

function encodePosition(position: Position): string {
  return `${position.commit}:${position.prepare}`;
}

function decodePosition(position: string): Position {
  const match = /^(\d+):(\d+)$/.exec(position);
  if (!match) throw new RangeError(`not an EventStoreDB position: ${JSON.stringify(position)}`);
  return { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) };
}

function comparePosition(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}
