/**
 * `npm run replay`: rebuilds every read model from the ledger into a fresh schema, showing
 * progress, then swaps it in for the live `read` schema in one transaction (a running service's
 * projectors pause for the swap and carry on from the rebuilt checkpoints). Prints events/s.
 */
import { performance } from 'node:perf_hooks';
import cliProgress from 'cli-progress';
import knex from 'knex';
import pg from 'pg';
import { allProjectors } from '../projections/index.js';
import { replayInto, swapInto } from '../projections/replay.js';
import { loadConfig } from '../src/config.js';
import { openLedger } from '../src/ledger/open-ledger.js';
import type { Ledger } from '../src/ledger/port.js';
import { openDatabase } from '../src/postgres/database.js';
import { migrateStores } from '../src/postgres/migrations/apply.js';

const REPLAY_SCHEMA = 'read_replay';

/** The progress bar's total: the Postgres ledger can count its rows; EventStoreDB cannot cheaply. */
async function countEvents(
  pool: pg.Pool,
  kind: 'postgres' | 'eventstoredb',
): Promise<number | null> {
  if (kind !== 'postgres') return null;
  const { rows } = await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM ledger_events');
  return Number(rows[0]!.n);
}

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config);
  const pool = new pg.Pool({ connectionString: database.url, max: 6 });
  pool.on('error', (err) => console.error('idle PostgreSQL connection failed:', err));
  const projectors = allProjectors();
  // One connection per projector: each applies its pages on its own.
  const db = knex({
    client: 'pg',
    connection: database.url,
    pool: { min: 0, max: projectors.length + 1 },
  });
  let ledger: Ledger | undefined;
  try {
    // The ledger it reads and the outbox the notices projector writes to are stores: at this
    // version's schema before either is touched, as the service's start leaves them.
    await migrateStores(pool);
    ledger = openLedger(config.ledger, { pool });
    const total = await countEvents(pool, config.ledger.kind);
    const bar = new cliProgress.SingleBar(
      {
        format:
          total === null
            ? 'replay | {value} events | {rate} events/s'
            : 'replay [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | ETA {eta_formatted}',
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    const began = performance.now();
    const rate = (events: number) => Math.round(events / ((performance.now() - began) / 1000));
    bar.start(total ?? 0, 0, { rate: 0 });
    const rebuilt = await replayInto({
      ledger,
      db,
      projectors,
      schema: REPLAY_SCHEMA,
      onProgress: (events) => {
        // Events appended since the count make the ledger longer than the bar thought.
        if (total !== null && events > bar.getTotal()) bar.setTotal(events);
        bar.update(events, { rate: rate(events) });
      },
    });
    bar.stop();
    const seconds = (performance.now() - began) / 1000;
    console.log(
      `rebuilt ${projectors.map((p) => p.name).join(', ')} from ${rebuilt.events} events ` +
        `in ${seconds.toFixed(1)} s: ${rate(rebuilt.events)} events/s`,
    );
    const swapped = await swapInto({ ledger, db, projectors, from: REPLAY_SCHEMA });
    console.log(
      `swapped into schema "read" (${swapped.events} events appended meanwhile caught up); ` +
        `checkpoint ${swapped.position ?? 'none (empty ledger)'}`,
    );
  } finally {
    await ledger?.close();
    await db.destroy();
    await pool.end();
    await database.stop();
  }
}

main().catch((err: unknown) => {
  console.error('replay failed:', err);
  process.exit(1);
});
