/** The app-data read model: (network, hash) → the full document, behind GET /app_data/{hash}. */
import type { Knex } from 'knex';
import { qualified } from '../sql.js';

export const APP_DATA_TABLE = 'app_data';

export async function migrateAppData(db: Knex, schema: string): Promise<void> {
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${qualified(schema, APP_DATA_TABLE)} (
      network text NOT NULL,
      hash text NOT NULL,
      full_app_data text NOT NULL,
      PRIMARY KEY (network, hash)
    )`);
}
