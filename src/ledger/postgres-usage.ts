/**
 * What the Postgres ledger holds, by event type: how many events, and the bytes their payloads
 * (data and metadata) take as stored, compressed or not. Counted on from the last row counted,
 * in the all-stream order and over visible rows only (./postgres-read.ts says why), at most
 * `page` rows a call: a call costs what was appended since the one before, and a large ledger
 * is counted over its first calls rather than in one long statement.
 */
import type pg from 'pg';
import { START, type PostgresPosition } from './postgres-rows.js';

export interface EventTypeUsage {
  events: number;
  bytes: number;
}

export interface LedgerUsage {
  /** Every type counted so far; concurrent calls share one count. */
  byType(): Promise<ReadonlyMap<string, EventTypeUsage>>;
}

const DEFAULT_PAGE = 100_000;

const COUNT = `
WITH page AS (
  SELECT transaction_id, global_position, type,
    pg_column_size(data) + pg_column_size(metadata) AS bytes
  FROM ledger_events
  WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
    AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  ORDER BY transaction_id, global_position
  LIMIT $3
), last AS (
  SELECT transaction_id::text, global_position::text FROM page
  ORDER BY page.transaction_id DESC, page.global_position DESC LIMIT 1
)
SELECT type, count(*)::int AS events, sum(bytes)::bigint::text AS bytes,
  (SELECT transaction_id FROM last) AS transaction_id,
  (SELECT global_position FROM last) AS global_position
FROM page GROUP BY type`;

interface CountRow {
  type: string;
  events: number;
  bytes: string;
  transaction_id: string;
  global_position: string;
}

export function createLedgerUsage(pool: pg.Pool, page = DEFAULT_PAGE): LedgerUsage {
  const usage = new Map<string, EventTypeUsage>();
  let counted: PostgresPosition = START;
  let running: Promise<ReadonlyMap<string, EventTypeUsage>> | null = null;

  async function countOn(): Promise<ReadonlyMap<string, EventTypeUsage>> {
    const { rows } = await pool.query<CountRow>({
      name: 'ledger-usage-page',
      text: COUNT,
      values: [counted.transactionId.toString(), counted.globalPosition.toString(), page],
    });
    for (const row of rows) {
      const known = usage.get(row.type) ?? { events: 0, bytes: 0 };
      usage.set(row.type, {
        events: known.events + row.events,
        bytes: known.bytes + Number(row.bytes),
      });
    }
    const [first] = rows;
    if (first) {
      counted = {
        transactionId: BigInt(first.transaction_id),
        globalPosition: BigInt(first.global_position),
      };
    }
    return usage;
  }

  return {
    byType() {
      running ??= countOn().finally(() => (running = null));
      return running;
    },
  };
}
