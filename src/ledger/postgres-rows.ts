/**
 * How the Postgres ledger's rows become port values: positions and recorded events.
 *
 * A position is the pair `(transaction_id, global_position)` that orders the all-stream, written
 * as `"<xid>:<pos>"`. Both halves are decimal bigints; they are compared as numbers, never as text.
 */
import type { RecordedEvent } from './port.js';

export interface PostgresPosition {
  transactionId: bigint;
  globalPosition: bigint;
}

/** Before every event: the position to read from when a reader has no checkpoint. */
export const START: PostgresPosition = { transactionId: 0n, globalPosition: 0n };

export function encodePosition(transactionId: string | bigint, globalPosition: string | bigint) {
  return `${transactionId}:${globalPosition}`;
}

export function decodePosition(position: string): PostgresPosition {
  const match = /^(\d+):(\d+)$/.exec(position);
  if (!match) throw new RangeError(`not a Postgres ledger position: ${JSON.stringify(position)}`);
  return { transactionId: BigInt(match[1]!), globalPosition: BigInt(match[2]!) };
}

export function comparePositions(a: string, b: string): number {
  const x = decodePosition(a);
  const y = decodePosition(b);
  if (x.transactionId !== y.transactionId) return x.transactionId < y.transactionId ? -1 : 1;
  if (x.globalPosition !== y.globalPosition) return x.globalPosition < y.globalPosition ? -1 : 1;
  return 0;
}

/** The columns every event-reading query selects, in the shape node-postgres returns them. */
export const EVENT_COLUMNS = `transaction_id::text, global_position::text, stream_id,
  revision::text, event_id::text, type, version, data, metadata, recorded_at`;

export interface EventRow {
  transaction_id: string;
  global_position: string;
  stream_id: string;
  revision: string;
  event_id: string;
  type: string;
  version: number;
  data: unknown;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    stream: row.stream_id,
    revision: BigInt(row.revision),
    position: encodePosition(row.transaction_id, row.global_position),
    type: row.type,
    version: row.version,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
  };
}
