/**
 * The decision half of the Postgres ledger's group commit, kept free of I/O.
 *
 * Many `append` calls share one transaction. Given the current state of the streams they touch
 * (read under row locks), this decides each call on its own, in arrival order, exactly as if the
 * calls had run one after another: a conflict or an idempotent retry affects only that call, and
 * a later call on the same stream sees the revisions an earlier one in the batch will write.
 */
import type { ExpectedRevision } from './port.js';

/** An event as far as planning cares: its id (the rest travels along untouched). */
export interface Identified {
  id: string;
}

export interface AppendRequest<E extends Identified = Identified> {
  stream: string;
  events: readonly E[];
  expected: ExpectedRevision;
}

/** What the batch knows of a stream before it writes. */
export interface StreamState {
  /** Revision of the stream's last event; -1n when the stream does not exist. */
  revision: bigint;
  /** Positions of the events already stored, by id (only ids the batch asks about are needed). */
  stored: ReadonlyMap<string, { revision: bigint; position: string }>;
}

export const MISSING_STREAM: StreamState = { revision: -1n, stored: new Map() };

/** An event the batch will insert. */
export interface PlannedRow<E extends Identified = Identified> {
  stream: string;
  revision: bigint;
  event: E;
}

/** Where a call's reported position comes from: already stored, or a row of this batch. */
export type PositionSource = { position: string } | { row: PlannedRow };

export type Outcome =
  | { kind: 'conflict'; actual: bigint }
  | { kind: 'append'; nextRevision: bigint; last: PositionSource; written: boolean };

export interface BatchPlan<E extends Identified> {
  /** One per request, in request order. */
  outcomes: Outcome[];
  /** Rows to insert, each stream's in revision order. */
  rows: PlannedRow<E>[];
  /** Final revision of every stream the batch writes to, and whether the batch creates it. */
  streams: Map<string, { revision: bigint; created: boolean }>;
}

export function satisfies(expected: ExpectedRevision, actual: bigint): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'noStream':
      return actual === -1n;
    case 'streamExists':
      return actual >= 0n;
    default:
      return actual === expected;
  }
}

interface WorkingStream {
  revision: bigint;
  existed: boolean;
  known: Map<string, PositionSource & { revision: bigint }>;
}

export function planBatch<E extends Identified>(
  requests: readonly AppendRequest<E>[],
  initial: ReadonlyMap<string, StreamState>,
): BatchPlan<E> {
  const working = new Map<string, WorkingStream>();
  const rows: PlannedRow<E>[] = [];
  const streams = new Map<string, { revision: bigint; created: boolean }>();

  const outcomes = requests.map((request): Outcome => {
    const stream = streamState(working, initial, request.stream);
    const fresh: E[] = [];
    const seen = new Set<string>();
    for (const event of request.events) {
      if (stream.known.has(event.id) || seen.has(event.id)) continue;
      seen.add(event.id);
      fresh.push(event);
    }

    // A retry of facts already recorded succeeds whatever it expected: the facts are there.
    if (fresh.length === 0) {
      let last = stream.known.get(request.events[0]!.id)!;
      for (const event of request.events) {
        const source = stream.known.get(event.id)!;
        if (source.revision > last.revision) last = source;
      }
      return { kind: 'append', nextRevision: stream.revision, last, written: false };
    }

    if (!satisfies(request.expected, stream.revision)) {
      return { kind: 'conflict', actual: stream.revision };
    }

    let row: PlannedRow<E> | undefined;
    for (const event of fresh) {
      stream.revision += 1n;
      row = { stream: request.stream, revision: stream.revision, event };
      rows.push(row);
      stream.known.set(event.id, { row, revision: row.revision });
    }
    streams.set(request.stream, { revision: stream.revision, created: !stream.existed });
    return { kind: 'append', nextRevision: stream.revision, last: { row: row! }, written: true };
  });

  return { outcomes, rows, streams };
}

function streamState(
  working: Map<string, WorkingStream>,
  initial: ReadonlyMap<string, StreamState>,
  name: string,
): WorkingStream {
  let stream = working.get(name);
  if (!stream) {
    const state = initial.get(name) ?? MISSING_STREAM;
    const known = new Map<string, PositionSource & { revision: bigint }>();
    for (const [id, stored] of state.stored) known.set(id, stored);
    stream = { revision: state.revision, existed: state.revision >= 0n, known };
    working.set(name, stream);
  }
  return stream;
}
