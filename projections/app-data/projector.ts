/**
 * The app-data projector. Documents come from PUT /app_data (`AppDataRegistered`) and from
 * orders that bring their full app data (`OrderPlaced`), as the reference stores both. The first
 * document stored under a hash stays (the reference inserts with ON CONFLICT DO NOTHING).
 */
import { ZERO_APP_DATA_HASH } from '../../src/domain/app-data.js';
import { ColumnSet } from '../columns.js';
import { eventsOfTypes, type EventOf } from '../events.js';
import type { Projector } from '../projector.js';
import { qualified } from '../sql.js';
import { APP_DATA_TABLE, migrateAppData } from './migrations.js';

const TYPES: ReadonlySet<'AppDataRegistered' | 'OrderPlaced'> = new Set([
  'AppDataRegistered',
  'OrderPlaced',
]);

interface AppDataRow {
  network: string;
  hash: string;
  full_app_data: string;
}

const columns = new ColumnSet<AppDataRow>([
  ['network', 'text'],
  ['hash', 'text'],
  ['full_app_data', 'text'],
]);

function documents(events: readonly EventOf<'AppDataRegistered' | 'OrderPlaced'>[]): AppDataRow[] {
  const rows = new Map<string, AppDataRow>();
  const add = (network: string, hash: string, full: string) => {
    const key = `${network}/${hash}`;
    if (!rows.has(key)) rows.set(key, { network, hash, full_app_data: full });
  };
  for (const e of events) {
    if (e.type === 'AppDataRegistered') add(e.data.network, e.data.hash, e.data.fullAppData);
    // The zero hash is reserved ("{}" by convention, never a stored document).
    else if (e.data.fullAppData !== null && e.data.order.appData !== ZERO_APP_DATA_HASH) {
      add(e.data.network, e.data.order.appData, e.data.fullAppData);
    }
  }
  return [...rows.values()];
}

export function appDataProjector(): Projector {
  return {
    name: 'app-data',
    version: 1,
    tables: [APP_DATA_TABLE],
    eventTypes: TYPES,
    migrate: migrateAppData,
    async handle(trx, events, schema) {
      const rows = documents(eventsOfTypes(events, TYPES));
      if (rows.length === 0) return;
      await trx.raw(
        `INSERT INTO ${qualified(schema, APP_DATA_TABLE)} (${columns.names})
         SELECT ${columns.names} FROM ${columns.unnest}
         ON CONFLICT (network, hash) DO NOTHING`,
        columns.bindings(rows),
      );
    },
  };
}
