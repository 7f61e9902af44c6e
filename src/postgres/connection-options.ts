/**
 * Deadlines on every PostgreSQL connection the service opens (its pg pool, its knex pool and the
 * dedicated connections copied from knex's settings), so that a server which accepts connections
 * and never answers (a frozen one) fails requests in bounded time, as a server that is down does,
 * instead of hanging them.
 *
 * - `connectMs`: opening a connection, or waiting for a free pooled one (pg's
 *   `connectionTimeoutMillis`, knex's acquire timeout).
 * - `queryMs`: the answer to one statement. The client gives up after it (pg's `query_timeout`,
 *   which also works when the server never answers), and the server cancels the statement a
 *   little later (`statement_timeout`): a slow server does not keep working for a client that
 *   left. The server's deadline must come second: a statement it cancels is an error it answered
 *   (57014, a `pg.DatabaseError`), which a caller may take for the statement's own fault (the
 *   ledger's group commit retries such a batch call by call), where a client-side timeout is
 *   plainly a connection that failed.
 *
 * Both apply to work in flight only: an idle session (a LISTEN connection, a leader's lock) is
 * never timed out. A leader's wait for its lock lasts as long as another instance leads, so
 * src/postgres/leadership.ts takes the query deadlines off that session.
 *
 * When pg's `query_timeout` expires it rejects the query but leaves the connection as it is: the
 * query is still the connection's active one, queries queued behind it wait for the server, and
 * one that times out while still queued is dropped unsent (a ROLLBACK, say, leaving a transaction
 * open). Such a connection must never serve anyone again: `discardOnQueryTimeout` closes it as
 * soon as one of its queries times out, so both pools drop it.
 */
import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from 'pino';

export interface PostgresDeadlines {
  /** Opening a connection, or waiting for a free pooled one. */
  connectMs: number;
  /** One statement's answer, after which the connection is closed and the statement cancelled. */
  queryMs: number;
}

/**
 * Far above any statement of the request path, the projections or the indexers (milliseconds;
 * the start-up migrations and `npm run replay` run on connections without the query
 * deadline), and far below what a client waits before giving up.
 */
export const DEFAULT_POSTGRES_DEADLINES: PostgresDeadlines = {
  connectMs: 10_000,
  queryMs: 20_000,
};

/**
 * How much later than the client the server cancels a statement. The server starts counting
 * only once it has the statement, so this covers the client's timer running late (a busy event
 * loop).
 */
const SERVER_GRACE_MS = 1_000;

/** pg's error for a query whose `query_timeout` expired (knex puts the SQL in front). */
const QUERY_READ_TIMEOUT = /Query read timeout$/;

/** Connections this module closed; knex's pool must not hand one out before it has ended. */
const abandoned = new WeakSet<pg.Client>();

/** The pg settings that give a connection these deadlines. */
export function deadlineSettings(
  deadlines: PostgresDeadlines,
): Pick<pg.ClientConfig, 'connectionTimeoutMillis' | 'query_timeout' | 'statement_timeout'> {
  return {
    connectionTimeoutMillis: deadlines.connectMs,
    query_timeout: deadlines.queryMs,
    statement_timeout: deadlines.queryMs + SERVER_GRACE_MS,
  };
}

/** A pg pool of at most `max` connections to `url`, which keep the deadlines. */
export function createPool(url: string, deadlines: PostgresDeadlines, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, ...deadlineSettings(deadlines) });
  pool.on('connect', discardOnQueryTimeout);
  return pool;
}

/**
 * Where a knex instance logs, into `logger`: without it knex prints to stdout, between the JSON
 * lines. What it warns of (a connection that failed or dropped) also fails the query, which its
 * caller reports: debug is enough.
 */
export function knexLog(logger: Logger): Knex.Config['log'] {
  return {
    warn: (message: unknown) => logger.debug({ knex: message }, 'knex warning'),
    error: (message: unknown) => logger.warn({ knex: message }, 'knex error'),
  };
}

/**
 * The connection and pool settings of a knex instance on `url` with these deadlines. The
 * settings are what `dedicatedConnectionConfig` copies, so dedicated connections keep them.
 * `pipelined` puts the connections in pg's pipeline mode: queries are sent without waiting for
 * the answers of those before (the projectors' batch transactions, projections/batch-transaction.ts).
 */
export function knexOptions(
  url: string,
  deadlines: PostgresDeadlines,
  pool: { min: number; max: number },
  { pipelined = false }: { pipelined?: boolean } = {},
): Pick<Knex.Config, 'connection' | 'acquireConnectionTimeout' | 'pool'> {
  // knex hands these to `new pg.Client()` as they are; its types do not know `pipeline`.
  const connection: pg.ClientConfig = {
    connectionString: url,
    ...deadlineSettings(deadlines),
    pipeline: pipelined,
  };
  return {
    connection: connection as Knex.PgConnectionConfig,
    acquireConnectionTimeout: deadlines.connectMs,
    pool: {
      ...pool,
      afterCreate(connection: pg.Client, done: (err: Error | null, c: pg.Client) => void) {
        discardOnQueryTimeout(connection);
        done(null, connection);
      },
      // A closed connection is marked disposed only once its socket has closed: until then,
      // this keeps the pool from lending it again.
      validate: (connection: pg.Client) => !abandoned.has(connection),
    },
  };
}

/**
 * A knex instance's settings for start-up migrations on `url`: one connection, with the connect
 * deadline but none on statements. A migration may build an index over a large table, or wait
 * for the lock while another instance migrates; a query deadline would fail the start instead.
 */
export function migrationKnexOptions(
  url: string,
  deadlines: PostgresDeadlines,
): Pick<Knex.Config, 'connection' | 'acquireConnectionTimeout' | 'pool'> {
  return {
    connection: { connectionString: url, connectionTimeoutMillis: deadlines.connectMs },
    acquireConnectionTimeout: deadlines.connectMs,
    pool: { min: 0, max: 1 },
  };
}

type Callback = (error: Error | null, result?: unknown) => void;
type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

const isRollback = (config: unknown): boolean =>
  (typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text) ===
  'ROLLBACK';

/** A ROLLBACK's answer, as node-postgres gives it: to the callback, or as a promise. */
function rolledBack(values: unknown, callback: unknown): unknown {
  const result = { command: 'ROLLBACK', rowCount: null, rows: [], fields: [] };
  const done = typeof values === 'function' ? values : callback;
  if (typeof done !== 'function') return Promise.resolve(result);
  process.nextTick(() => (done as Callback)(null, result));
  return undefined;
}

/**
 * Closes `client` as soon as one of its queries times out client-side (pg's "Query read
 * timeout"), whichever form the query took (callback as pg-pool and knex pass it, or promise).
 * Closing a connection with a query in flight destroys its socket: queued queries fail with
 * "Connection terminated", no 'error' event is emitted, and the pools see a closed client.
 */
export function discardOnQueryTimeout(client: pg.Client): void {
  const query = client.query.bind(client) as unknown as Query;
  const check = (error: unknown) => {
    if (!(error instanceof Error) || !QUERY_READ_TIMEOUT.test(error.message)) return;
    if (abandoned.has(client)) return;
    abandoned.add(client);
    client.end().catch(() => undefined);
  };
  const watched = (arg: unknown): unknown =>
    typeof arg === 'function'
      ? (error: Error | null, result?: unknown) => {
          check(error);
          (arg as Callback)(error, result);
        }
      : arg;
  const guarded: Query = (config, values, callback) => {
    // The transaction of a connection closed for a timeout ends with the connection, on the
    // server. Its ROLLBACK would only fail ("Client was closed") and, in knex's transactions,
    // take the place of the timeout as the error reported.
    if (abandoned.has(client) && isRollback(config)) return rolledBack(values, callback);
    const result = query(config, watched(values), watched(callback));
    // Runs before the caller's own reaction: the connection is closed before it can go on.
    if (result instanceof Promise) result.catch(check);
    return result;
  };
  client.query = guarded as unknown as pg.Client['query'];
}
