/**
 * What fault tests check after a crash or an outage, read straight from the service's database:
 * the ledger (through the port), the projectors' checkpoints and the orders read model.
 */
import pg from 'pg';
import type { OrderPlacedV1 } from '../../src/domain/events.js';
import { createPostgresLedger } from '../../src/ledger/postgres.js';
import type { RecordedEvent } from '../../src/ledger/port.js';
import { waitFor } from './wait.js';

export interface LedgerAudit {
  /** Every event in all-stream order. */
  events(): Promise<RecordedEvent[]>;
  /** How many `OrderPlaced` events the ledger holds per order UID. */
  placedPerUid(): Promise<Map<string, number>>;
  /** Resolves once every projector's stored checkpoint has reached the ledger's current head. */
  projectionsCaughtUp(timeoutMs: number): Promise<void>;
  /** The orders read model: its row count and its distinct UIDs. */
  ordersReadModel(): Promise<{ rows: number; uids: Set<string> }>;
  /**
   * The service's standing sessions, sorted: one `leader <key>` per leader lock held (advisory
   * lock keys, as Postgres shows them) and one `LISTEN <channel>` per listening connection.
   */
  standingSessions(): Promise<string[]>;
  /** The block the chain indexer of `network` has indexed up to (null: not started). */
  indexerCursor(network: string): Promise<number | null>;
  close(): Promise<void>;
}

const PAGE = 1_000;

/** Leader sessions name themselves `batchbook-leader:…` (src/postgres/leadership.ts). */
const STANDING_SESSIONS = `
SELECT 'leader ' || l.classid || ':' || l.objid AS session
FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE 'batchbook-leader:%'
  AND a.datname = current_database()
UNION ALL
SELECT a.query FROM pg_stat_activity a
WHERE a.query LIKE 'LISTEN %' AND a.datname = current_database() AND a.pid <> pg_backend_pid()
ORDER BY 1`;

export async function openLedgerAudit(databaseUrl: string): Promise<LedgerAudit> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // A server restarted under the audit drops its idle connections; the next query reconnects.
  pool.on('error', () => undefined);
  const ledger = createPostgresLedger({ pool });

  const events = async () => {
    const all: RecordedEvent[] = [];
    for (let page = await ledger.readAll(null, PAGE); ;) {
      all.push(...page);
      if (page.length < PAGE) return all;
      page = await ledger.readAll(page.at(-1)!.position, PAGE);
    }
  };

  const checkpoints = async () => {
    const { rows } = await pool.query<{ projector: string; position: string | null }>(
      'SELECT projector, position FROM read.projection_checkpoints ORDER BY projector',
    );
    return rows;
  };

  return {
    events,
    async placedPerUid() {
      const counts = new Map<string, number>();
      for (const event of await events()) {
        if (event.type !== 'OrderPlaced') continue;
        const { uid } = event.data as OrderPlacedV1;
        counts.set(uid, (counts.get(uid) ?? 0) + 1);
      }
      return counts;
    },
    async projectionsCaughtUp(timeoutMs) {
      const head = (await events()).at(-1)?.position ?? null;
      if (head === null) return;
      let behind: string[] = [];
      await waitFor(
        async () => {
          behind = (await checkpoints())
            .filter((c) => c.position === null || ledger.comparePositions(c.position, head) < 0)
            .map((c) => `${c.projector} at ${c.position}`);
          return behind.length === 0;
        },
        { timeoutMs, intervalMs: 50, description: `every projector at the head ${head}` },
      ).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}; behind: ${behind.join(', ')}`);
      });
    },
    async ordersReadModel() {
      const { rows } = await pool.query<{ uid: string }>('SELECT uid FROM read.orders');
      return { rows: rows.length, uids: new Set(rows.map((r) => r.uid)) };
    },
    async standingSessions() {
      const { rows } = await pool.query<{ session: string }>(STANDING_SESSIONS);
      return rows.map((r) => r.session);
    },
    async indexerCursor(network) {
      const { rows } = await pool.query<{ block: string }>(
        'SELECT block_number::text AS block FROM chain.indexer_cursors WHERE network = $1',
        [network],
      );
      return rows[0] ? Number(rows[0].block) : null;
    },
    async close() {
      await ledger.close();
      await pool.end();
    },
  };
}
