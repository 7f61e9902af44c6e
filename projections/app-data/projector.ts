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

type AppDataEvent = EventOf<'AppDataRegistered' | 'OrderPlaced'>;

/** The document an event brings, if any. */
function documentOf(e: AppDataEvent): AppDataRow | null {
  if (e.type === 'AppDataRegistered') {
    return { network: e.data.network, hash: e.data.hash, full_app_data: e.data.fullAppData };
  }
  // The zero hash is reserved ("{}" by convention, never a stored document).
  if (e.data.fullAppData === null || e.data.order.appData === ZERO_APP_DATA_HASH) return null;
  return { network: e.data.network, hash: e.data.order.appData, full_app_data: e.data.fullAppData };
}

const keyOf = (row: AppDataRow) => `${row.network}/${row.hash}`;

function documents(events: readonly AppDataEvent[]): AppDataRow[] {
  const rows = new Map<string, AppDataRow>();
  for (const e of events) {
    const row = documentOf(e);
    if (row && !rows.has(keyOf(row))) rows.set(keyOf(row), row);
  }
  return [...rows.values()];
}

/** Remembered documents, at most: past it the memory starts over (it only saves transactions). */
const REMEMBERED = 10_000;

export function appDataProjector(): Projector {
  // Documents this process has seen committed. The first document under a hash stays, so a later
  // event bringing the same one changes nothing: orders keep bringing the few documents their
  // apps use. Only committed batches count: a batch rolled back and retried must insert again.
  // A replay swapped in meanwhile holds them too (it projects the whole ledger).
  const stored = new Set<string>();
  return {
    name: 'app-data',
    version: 1,
    tables: [APP_DATA_TABLE],
    eventTypes: TYPES,
    migrate: migrateAppData,
    changes(event) {
      const [e] = eventsOfTypes([event], TYPES);
      const row = e ? documentOf(e) : null;
      return row !== null && !stored.has(keyOf(row));
    },
    committed(events) {
      const rows = documents(eventsOfTypes(events, TYPES));
      if (stored.size + rows.length > REMEMBERED) stored.clear();
      for (const row of rows) stored.add(keyOf(row));
    },
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
