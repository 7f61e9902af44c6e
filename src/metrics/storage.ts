/**
 * The storage each kind of data takes, as gauges of `/metrics`, read when scraped: the ledger's
 * events and their payload bytes by type (the PostgreSQL ledger's; EventStoreDB keeps figures of
 * its own), every table's size on disk with its indexes and TOAST and its live rows as
 * PostgreSQL's statistics estimate them (the ledger in `public`, the read models in `read`, the
 * quote store in `quote_store`, the chain indexers' stores in `chain`, the outbox in
 * `delivery`), and the quotes the quote store holds per network. A read that fails (the
 * database away) leaves the last values.
 */
import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { QuoteStore } from '../commands/quote-store.js';
import type { EventTypeUsage, LedgerUsage } from '../ledger/postgres-usage.js';
import { readGauge, type Sample } from './read-gauge.js';
import { PREFIX } from './units.js';

export interface StorageSources {
  pool: pg.Pool;
  /** Null when the ledger is not the PostgreSQL one. */
  ledger: LedgerUsage | null;
  quotes: Pick<QuoteStore, 'counts'>;
}

const TABLES = `
SELECT n.nspname AS schema, c.relname AS table,
  pg_total_relation_size(c.oid)::text AS bytes, COALESCE(s.n_live_tup, 0)::text AS rows
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg_toast%'`;

interface TableRow {
  schema: string;
  table: string;
  bytes: string;
  rows: string;
}

export function registerStorageMetrics(registry: Registry, sources: StorageSources): void {
  const tables = async () => (await sources.pool.query<TableRow>(TABLES)).rows;
  const byTable = ['schema', 'table'];
  readGauge(
    registry,
    {
      name: `${PREFIX}table_size_bytes`,
      help: 'Disk space of a table with its indexes and TOAST, by schema and table',
      labelNames: byTable,
    },
    async () => (await tables()).map((row) => [labels(row), Number(row.bytes)]),
  );
  readGauge(
    registry,
    {
      name: `${PREFIX}table_live_rows`,
      help: "A table's live rows as PostgreSQL's statistics estimate them, by schema and table",
      labelNames: byTable,
    },
    async () => (await tables()).map((row) => [labels(row), Number(row.rows)]),
  );
  readGauge(
    registry,
    {
      name: `${PREFIX}quote_store_quotes`,
      help: 'Quotes the quote store holds (given and not yet swept), by network',
      labelNames: ['network'],
    },
    async () => [...(await sources.quotes.counts())].map(([network, n]) => [{ network }, n]),
  );
  const { ledger } = sources;
  if (!ledger) return;
  const byType = async (figure: keyof EventTypeUsage) =>
    [...(await ledger.byType())].map(([type, usage]): Sample => [{ type }, usage[figure]]);
  readGauge(
    registry,
    {
      name: `${PREFIX}ledger_events`,
      help: 'Events in the ledger, by type',
      labelNames: ['type'],
    },
    () => byType('events'),
  );
  readGauge(
    registry,
    {
      name: `${PREFIX}ledger_event_payload_bytes`,
      help: "Bytes the ledger's event payloads (data and metadata) take as stored, by type",
      labelNames: ['type'],
    },
    () => byType('bytes'),
  );
}

function labels(row: TableRow): { schema: string; table: string } {
  return { schema: row.schema, table: row.table };
}
