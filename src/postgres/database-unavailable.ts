/**
 * Telling "PostgreSQL is not there" (down, restarting, shutting down, unreachable) from a query
 * that failed on its own: the first passes once the server is back, so the API answers it with
 * a 503 the client retries, not with the 500 of a bug. The commands and queries the HTTP layer
 * is given throw it as one typed refusal (`translateDatabaseErrors`): the HTTP edge never reads
 * a driver's error.
 *
 * pg and knex hand the driver's error through as it is: a socket error (`ECONNREFUSED`, ...,
 * or `ENOENT` from connecting to a Unix socket that is gone), a server error with its SQLSTATE
 * (class 08 connection exception, 57P01..57P03 shutdown or start-up), or one of pg's own
 * errors for a connection that ended or could not be opened in time.
 * Only the error itself is looked at, never its `cause`: a chain RPC that failed the same way is
 * not the database.
 */
import { Rejection } from '../commands/rejection.js';

const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down). */
const SHUTDOWN_STATES = new Set(['57P01', '57P02', '57P03']);

/**
 * query_canceled: a statement the server cancelled at its deadline (`statement_timeout`, see
 * src/postgres/connection-options.ts), or that an operator cancelled.
 */
const QUERY_CANCELED = '57014';

/**
 * pg's and knex's words for a session that ended, never opened or did not answer in time (knex
 * prefixes the SQL). A server that accepts connections and never answers (a frozen one) fails
 * with the timeouts, or pg-pool's "Connection terminated due to connection timeout", once the
 * deadlines of src/postgres/connection-options.ts pass.
 */
const MESSAGES = [
  /Connection terminated/,
  /is not queryable/,
  // pg: a query's `query_timeout` expired.
  /Query read timeout$/,
  // pg-pool: no connection within `connectionTimeoutMillis` (opening one, or a pooled one free).
  /timeout exceeded when trying to connect/,
  // pg's own client (knex's, a dedicated one): not connected within `connectionTimeoutMillis`.
  /^timeout expired$/,
  // knex: no connection within `acquireConnectionTimeout` (a KnexTimeoutError).
  /Knex: Timeout acquiring a connection/,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || SHUTDOWN_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) {
      return true;
    }
    // A Unix socket whose server has stopped: the socket file is gone.
    if (code === 'ENOENT' && (error as { syscall?: unknown }).syscall === 'connect') return true;
    // A Unix socket whose server stopped accepting (frozen): its queue of connections is full.
    if (code === 'EAGAIN' && (error as { syscall?: unknown }).syscall === 'connect') return true;
    if (code === QUERY_CANCELED) return true;
  }
  return MESSAGES.some((pattern) => pattern.test(error.message));
}

/** What a caller meets when the database is not there: a refusal to retry later. */
function unavailable(cause: unknown): Rejection {
  return new Rejection(
    'DatabaseUnavailable',
    'the database is unavailable; retry later',
    undefined,
    { cause },
  );
}

const translated = (error: unknown) => (isDatabaseUnavailable(error) ? unavailable(error) : error);

/**
 * `port` with each of its functions' failures that mean "the database is not there" turned into
 * the `DatabaseUnavailable` refusal, thrown or rejected as the function failed.
 */
export function translateDatabaseErrors<T extends object>(port: T): T {
  return Object.fromEntries(
    Object.entries(port).map(([name, member]) => {
      if (typeof member !== 'function') return [name, member];
      const call = (...args: unknown[]): unknown => {
        let result: unknown;
        try {
          result = (member as (...a: unknown[]) => unknown).apply(port, args);
        } catch (error) {
          throw translated(error);
        }
        return result instanceof Promise
          ? result.catch((error: unknown) => {
              throw translated(error);
            })
          : result;
      };
      return [name, call];
    }),
  ) as T;
}
