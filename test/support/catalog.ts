/**
 * What PostgreSQL's catalog says of a database's stores outside the read models: their schemas,
 * tables (and whether logged), columns, indexes, constraints and sequences, in a stable order,
 * without the object ids that differ between two databases built alike.
 */
import type pg from 'pg';

/** The schemas the store migrations write to. */
const STORE_SCHEMAS = ['public', 'chain', 'quote_store', 'delivery'];

const QUERIES = {
  schemas: `SELECT nspname AS name FROM pg_namespace WHERE nspname = ANY($1) ORDER BY 1`,
  relations: `SELECT n.nspname AS schema, c.relname AS name, c.relkind AS kind,
      c.relpersistence AS persistence
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = ANY($1) ORDER BY 1, 2`,
  columns: `SELECT table_schema, table_name, ordinal_position, column_name, data_type, udt_name,
      numeric_precision, numeric_scale, is_nullable, column_default
    FROM information_schema.columns WHERE table_schema = ANY($1) ORDER BY 1, 2, 3`,
  indexes: `SELECT schemaname, tablename, indexname, indexdef
    FROM pg_indexes WHERE schemaname = ANY($1) ORDER BY 1, 2, 3`,
  constraints: `SELECT n.nspname AS schema, t.relname AS table, c.conname AS name,
      c.contype AS kind, pg_get_constraintdef(c.oid) AS definition
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = ANY($1) ORDER BY 1, 2, 3`,
  sequences: `SELECT schemaname, sequencename, data_type, start_value, increment_by, cycle
    FROM pg_sequences WHERE schemaname = ANY($1) ORDER BY 1, 2`,
} as const;

export type StoreCatalog = Record<keyof typeof QUERIES, Record<string, unknown>[]>;

export async function storeCatalog(pool: pg.Pool): Promise<StoreCatalog> {
  const entries = await Promise.all(
    Object.entries(QUERIES).map(async ([part, sql]) => {
      const { rows } = await pool.query<Record<string, unknown>>(sql, [STORE_SCHEMAS]);
      return [part, rows] as const;
    }),
  );
  return Object.fromEntries(entries) as StoreCatalog;
}
