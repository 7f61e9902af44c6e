/**
 * Group commit for the Postgres ledger's appends.
 *
 * One append per transaction spends most of its time waiting for the commit to reach disk, which
 * caps a ledger near 1,200 appends/s (DESIGN.md §9). Here concurrent `append` calls queue up and a
 * writer drains the queue into one batch, then answers each caller on its own (its own conflict,
 * its own idempotent result). Only a couple of batches run at once: enough to overlap one batch's
 * commit with the next one's read, few enough that a caller never waits behind a long queue.
 *
 * A batch is two statements, and never holds a transaction open between them:
 * 1. READ the current revision of every stream the batch touches, and which of its event ids
 *    those streams already hold (one snapshot); skipped when every call expects a new stream;
 * 2. decide every call against that state (postgres-batch-plan.ts);
 * 3. WRITE everything in one autocommitted statement that compare-and-sets each stream's revision
 *    from the value read in step 1 (or creates the stream). A stream another writer moved in
 *    between is simply not written: the calls on it go back to the queue and are decided again,
 *    against the stream as it now is.
 */
import pg from 'pg';
import {
  planBatch,
  type AppendRequest,
  type BatchPlan,
  type PlannedRow,
  type StreamState,
} from './postgres-batch-plan.js';
import { encodePosition } from './postgres-rows.js';
import { WrongExpectedRevisionError, type AppendResult } from './port.js';

/** An event ready for the database: JSON already serialised, so bad input fails its own caller. */
export interface PreparedEvent {
  id: string;
  type: string;
  version: number;
  data: string;
  metadata: string;
}

export interface GroupCommitOptions {
  pool: pg.Pool;
  notifyChannel: string;
  /** Batches in flight at once. */
  maxConcurrentBatches: number;
  /** Events per batch (a single larger append still goes alone). */
  maxBatchEvents: number;
}

interface Pending extends AppendRequest<PreparedEvent> {
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
  /** Set once the call was found deciding on a state that no longer held. */
  stale?: boolean;
}

const READ = `
SELECT stream_id, revision::text AS stream_revision, NULL AS event_id, NULL AS revision,
  NULL AS transaction_id, NULL AS global_position
FROM ledger_streams WHERE stream_id = ANY($1::text[])
UNION ALL
SELECT e.stream_id, NULL, e.event_id::text, e.revision::text, e.transaction_id::text,
  e.global_position::text
FROM unnest($2::text[], $3::uuid[]) AS k(stream_id, event_id)
JOIN ledger_events e ON e.stream_id = k.stream_id AND e.event_id = k.event_id`;

interface ReadRow {
  stream_id: string;
  stream_revision: string | null;
  event_id: string | null;
  revision: string | null;
  transaction_id: string | null;
  global_position: string | null;
}

/**
 * Existing streams are locked first, in one order for every batch (the uncorrelated count is a
 * one-time filter, evaluated before the update scans anything), then new streams are inserted in
 * that same order: concurrent batches wait for each other but cannot deadlock. A new stream that
 * another batch creates meanwhile is left alone by ON CONFLICT DO NOTHING, an existing one whose
 * revision moved fails the compare-and-set; either way no events are inserted for it.
 */
const WRITE = `
WITH locked AS (
  SELECT stream_id FROM ledger_streams WHERE stream_id = ANY($1::text[])
  ORDER BY stream_id FOR UPDATE
), updated AS (
  UPDATE ledger_streams AS s SET revision = u.revision
  FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u(stream_id, expected, revision)
  WHERE s.stream_id = u.stream_id AND s.revision = u.expected
    AND (SELECT count(*) FROM locked) >= 0
  RETURNING s.stream_id
), created AS (
  INSERT INTO ledger_streams (stream_id, revision)
  SELECT stream_id, revision FROM unnest($4::text[], $5::bigint[]) AS c(stream_id, revision)
  ORDER BY stream_id
  ON CONFLICT (stream_id) DO NOTHING
  RETURNING stream_id
), appended AS (
  INSERT INTO ledger_events (stream_id, revision, event_id, type, version, data, metadata)
  SELECT e.stream_id, e.revision, e.event_id, e.type, e.version, e.data, e.metadata
  FROM unnest($6::text[], $7::bigint[], $8::uuid[], $9::text[], $10::integer[], $11::jsonb[],
    $12::jsonb[]) WITH ORDINALITY AS e(stream_id, revision, event_id, type, version, data, metadata, n)
  WHERE e.stream_id IN (SELECT stream_id FROM updated UNION ALL SELECT stream_id FROM created)
  ORDER BY e.n -- positions follow revisions within a stream
  RETURNING stream_id, revision::text, transaction_id::text, global_position::text
), notified AS (
  SELECT pg_notify($13, pg_current_xact_id()::text)
)
SELECT appended.* FROM appended, notified`;

interface WrittenRow {
  stream_id: string;
  revision: string;
  transaction_id: string;
  global_position: string;
}

export class GroupCommitter {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  private drained: (() => void)[] = [];

  constructor(private readonly options: GroupCommitOptions) {}

  append(request: AppendRequest<PreparedEvent>): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...request, resolve, reject });
      this.pump();
    });
  }

  /** Resolves once every queued and running append has been answered. */
  drain(): Promise<void> {
    if (this.inFlight === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private pump(): void {
    while (this.inFlight < this.options.maxConcurrentBatches && this.queue.length > 0) {
      const batch = this.takeBatch();
      this.inFlight += 1;
      void this.run(batch).finally(() => {
        this.inFlight -= 1;
        this.pump();
        if (this.inFlight === 0 && this.queue.length === 0) {
          for (const resolve of this.drained.splice(0)) resolve();
        }
      });
    }
  }

  private takeBatch(): Pending[] {
    let events = this.queue[0]!.events.length;
    let count = 1;
    while (count < this.queue.length) {
      events += this.queue[count]!.events.length;
      if (events > this.options.maxBatchEvents) break;
      count += 1;
    }
    return this.queue.splice(0, count);
  }

  private async run(batch: Pending[]): Promise<void> {
    let read: Map<string, StreamState>;
    try {
      // Placing an order is a `noStream` append to a new stream: assume the streams are new and
      // skip the read. If one exists after all, the write leaves it alone and its calls are
      // decided again, this time after reading it.
      const assumeNew = batch.every((request) => request.expected === 'noStream' && !request.stale);
      read = assumeNew ? new Map() : await this.read(batch);
    } catch (error) {
      for (const request of batch) request.reject(error);
      return;
    }
    const plan = planBatch(batch, read);
    let written: WrittenRow[] = [];
    if (plan.rows.length > 0) {
      try {
        written = await this.write(plan, read);
      } catch (error) {
        if (batch.length > 1 && error instanceof pg.DatabaseError) {
          // The server refused the statement, so nothing was written; most likely one call's
          // input (text jsonb cannot hold, say). Retry each call alone so only that one fails.
          for (const request of batch) await this.run([request]);
          return;
        }
        // Otherwise (a lost connection) the batch may or may not be committed. The callers
        // learn that it failed; their retries are safe, as events are idempotent by id.
        for (const request of batch) request.reject(error);
        return;
      }
    }
    this.settle(batch, plan, written);
  }

  private async read(batch: readonly Pending[]): Promise<Map<string, StreamState>> {
    const streams = [...new Set(batch.map((request) => request.stream))];
    const keyStreams = batch.flatMap((request) => request.events.map(() => request.stream));
    const keyIds = batch.flatMap((request) => request.events.map((event) => event.id));
    const { rows } = await this.options.pool.query<ReadRow>(
      { name: 'ledger-append-read', text: READ },
      [streams, keyStreams, keyIds],
    );
    const states = new Map<string, StreamState & { stored: Map<string, unknown> }>();
    for (const row of rows) {
      if (row.stream_revision !== null) {
        states.set(row.stream_id, { revision: BigInt(row.stream_revision), stored: new Map() });
      }
    }
    for (const row of rows) {
      if (row.event_id === null) continue;
      states.get(row.stream_id)!.stored.set(row.event_id, {
        revision: BigInt(row.revision!),
        position: encodePosition(row.transaction_id!, row.global_position!),
      });
    }
    return states;
  }

  private async write(
    plan: BatchPlan<PreparedEvent>,
    read: ReadonlyMap<string, StreamState>,
  ): Promise<WrittenRow[]> {
    const streams = [...plan.streams];
    const updated = streams.filter(([, s]) => !s.created);
    const created = streams.filter(([, s]) => s.created);
    const { rows } = await this.options.pool.query<WrittenRow>(
      { name: 'ledger-append-write', text: WRITE },
      [
        updated.map(([stream]) => stream),
        updated.map(([stream]) => read.get(stream)!.revision.toString()),
        updated.map(([, s]) => s.revision.toString()),
        created.map(([stream]) => stream),
        created.map(([, s]) => s.revision.toString()),
        plan.rows.map((row) => row.stream),
        plan.rows.map((row) => row.revision.toString()),
        plan.rows.map((row) => row.event.id),
        plan.rows.map((row) => row.event.type),
        plan.rows.map((row) => row.event.version),
        plan.rows.map((row) => row.event.data),
        plan.rows.map((row) => row.event.metadata),
        this.options.notifyChannel,
      ],
    );
    return rows;
  }

  /** Answers each call of a written batch, or queues it again if its stream moved meanwhile. */
  private settle(batch: Pending[], plan: BatchPlan<PreparedEvent>, written: WrittenRow[]) {
    const positions = new Map<string, string>();
    const writtenStreams = new Set<string>();
    for (const row of written) {
      const position = encodePosition(row.transaction_id, row.global_position);
      positions.set(rowKey(row.stream_id, row.revision), position);
      writtenStreams.add(row.stream_id);
    }
    const retry: Pending[] = [];
    batch.forEach((request, index) => {
      // Every call on a stream that was not written was decided on a state that did not hold.
      if (plan.streams.has(request.stream) && !writtenStreams.has(request.stream)) {
        request.stale = true;
        retry.push(request);
        return;
      }
      const outcome = plan.outcomes[index]!;
      if (outcome.kind === 'conflict') {
        const { stream, expected } = request;
        request.reject(new WrongExpectedRevisionError(stream, expected, outcome.actual));
        return;
      }
      const position =
        'position' in outcome.last
          ? outcome.last.position
          : positions.get(plannedKey(outcome.last.row));
      if (position === undefined) {
        request.reject(new Error(`ledger: no position returned for stream ${request.stream}`));
        return;
      }
      request.resolve({ nextRevision: outcome.nextRevision, position, written: outcome.written });
    });
    // Ahead of newer calls, so each stream still sees its calls in arrival order.
    this.queue.unshift(...retry);
  }
}

function rowKey(stream: string, revision: string): string {
  return `${revision}\u0000${stream}`;
}

function plannedKey(row: PlannedRow): string {
  return rowKey(row.stream, row.revision.toString());
}
