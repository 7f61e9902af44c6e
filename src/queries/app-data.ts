/** App-data queries behind GET /app_data/{hash}. */
import type { Knex } from 'knex';
import type { Hex } from '../domain/events.js';
import { table } from './schema.js';

export interface AppDataQueries {
  /** The full document registered under `hash` (lowercase), or null. */
  byHash(network: string, hash: Hex): Promise<string | null>;
}

export function createAppDataQueries(db: Knex, schema = 'read'): AppDataQueries {
  const sql = `SELECT full_app_data FROM ${table(schema, 'app_data')} WHERE network = ? AND hash = ?`;
  return {
    async byHash(network, hash) {
      const { rows } = await db.raw<{ rows: { full_app_data: string }[] }>(sql, [network, hash]);
      return rows[0]?.full_app_data ?? null;
    },
  };
}
