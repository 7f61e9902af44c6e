/**
 * The first step: the data directory held, what a crashed run left in it stopped, the database
 * opened and migrated, and the connections and ledger every later step works with.
 */
import knex, { type Knex } from 'knex';
import type pg from 'pg';
import type { Logger } from 'pino';
import { dedicatedConnectionConfig } from '../../projections/connection.js';
import { eventPayloadProblem } from '../../schemas/event-payloads.js';
import type { Config } from '../config.js';
import { claimDataDir, type DataDirClaim } from '../data-dir-claim.js';
import { openLedger } from '../ledger/open-ledger.js';
import type { Ledger } from '../ledger/port.js';
import { stopLeftoverServers } from '../leftover-servers.js';
import {
  createPool,
  DEFAULT_POSTGRES_DEADLINES,
  knexLog,
  knexOptions,
  type PostgresDeadlines,
} from '../postgres/connection-options.js';
import { openDatabase, type Database } from '../postgres/database.js';
import { leadershipOn } from '../postgres/leadership.js';
import type { RequestLeadership } from '../ledger/leadership.js';
import { runStartupMigrations } from '../startup-migrations.js';
import type { Lifetime } from './lifetime.js';

export interface Infrastructure {
  database: Database;
  deadlines: PostgresDeadlines;
  /** Connections for the ledger and the stores that take pg directly. */
  pool: pg.Pool;
  ledger: Ledger;
  /** Connections for the queries. */
  db: Knex;
  /** Each leader role on this thread locks on a session of its own. */
  requestLeadership: RequestLeadership;
  /** Held when the service runs embedded servers in its data directory; null otherwise. */
  claim: DataDirClaim | null;
  logger: Logger;
}

/** Connections the service thread keeps for the ledger and the pg-based stores. */
const POOL_MAX = 24;
/** Connections for the read models' queries. */
const QUERY_POOL_MAX = 16;

export async function openInfrastructure(
  config: Config,
  life: Lifetime,
  logger: Logger,
  postgresDeadlines: Partial<PostgresDeadlines> = {},
): Promise<Infrastructure> {
  // The embedded servers live in the data directory: one service at a time there, and what a
  // crashed one left running is stopped before they start again.
  let claim: DataDirClaim | null = null;
  if (config.databaseUrl === null || config.devnet.enabled || config.fork !== null) {
    const held = await claimDataDir(config.dataDir);
    claim = held;
    life.onStop(() => held.release());
    await stopLeftoverServers(config.dataDir, logger);
  }
  const database = await openDatabase(config);
  life.onStop(() => database.stop());

  const deadlines = { ...DEFAULT_POSTGRES_DEADLINES, ...postgresDeadlines };
  await runStartupMigrations(database.url, deadlines);
  const pool = createPool(database.url, deadlines, POOL_MAX);
  pool.on('error', life.warn('idle PostgreSQL connection failed'));
  life.onStop(() => pool.end());
  // On the tables the start-up pass above made, free of the statement deadline this pool keeps.
  const ledger = openLedger(config.ledger, {
    pool,
    onError: life.warn('ledger connection failed; retrying'),
    check: eventPayloadProblem,
  });
  life.onStop(() => ledger.close());

  const db = knex({
    client: 'pg',
    ...knexOptions(database.url, deadlines, { min: 0, max: QUERY_POOL_MAX }),
    log: knexLog(logger),
  });
  life.onStop(() => db.destroy());
  // The projection thread opens its own sessions.
  const requestLeadership = leadershipOn(dedicatedConnectionConfig(db));
  return { database, deadlines, pool, ledger, db, requestLeadership, claim, logger };
}
