/**
 * The real service as a child process (`node --import tsx src/main.ts`), for fault tests that
 * kill it or watch it survive: it gets only the environment given here (plus PATH and HOME), a
 * fixed free port on 127.0.0.1 that it keeps across restarts, and writes its logs to a file.
 * Like `startTestService`, the devnet is the test run's shared anvil and auctions are off unless
 * asked for; there is no other live network.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedTestChain } from './chain.js';
import { waitFor, withDeadline } from './wait.js';
import { freePort } from './ports.js';

export interface ServiceProcessOptions {
  /** The service's PostgreSQL (the child never starts an embedded one). */
  databaseUrl: string;
  /** Extra environment variables (PORT, HOST and DATABASE_URL are fixed). */
  env?: Record<string, string>;
}

export interface ServiceProcess {
  /** Base URL of the server, the same across restarts, e.g. http://127.0.0.1:43123 */
  url: string;
  /** Base URL of the devnet order book. */
  devnet: string;
  /** The running child's process id (null while it is down, also after a crash). */
  readonly pid: number | null;
  /** SIGKILL: no shutdown of any kind; resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts the service again with the same environment; resolves once it answers. */
  restart(): Promise<void>;
  /** Stops the child (SIGTERM, SIGKILL after a deadline) and removes its log; safe to repeat. */
  stop(): Promise<void>;
  /** What the child has logged so far. */
  log(): string;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const START_DEADLINE_MS = 60_000;
const STOP_DEADLINE_MS = 10_000;
const LOG_TAIL_CHARS = 4_000;

export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DEVNET_RPC_URL: (await sharedTestChain()).rpcUrl,
    INDEXER_POLL_INTERVAL_MS: '50',
    DEVNET_AUCTION_INTERVAL_MS: '3600000',
    RATE_LIMIT_ORDERS_PER_SECOND: '1000000',
    RATE_LIMIT_QUOTES_PER_SECOND: '1000000',
    RATE_LIMIT_APP_DATA_PER_SECOND: '1000000',
    RATE_LIMIT_CANCELS_PER_SECOND: '1000000',
    RATE_LIMIT_CHANNELS_PER_SECOND: '1000000',
    RATE_LIMIT_CHANNELS_PER_HOUR: '1000000',
    LOG_LEVEL: 'warn',
    // Suites deliver notices to receivers on 127.0.0.1.
    DELIVERY_ALLOW_PRIVATE_HOSTS: 'true',
    // A test run killed outright takes its services with it.
    STOP_WITH_PARENT: 'true',
    ...options.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: options.databaseUrl,
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'batchbook-service-'));
  const logFile = path.join(dir, 'service.log');
  const log = () => readFileSync(logFile, 'utf8');

  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  // A child left running after the test process is gone would hold the port and the database.
  const killOnExit = () => child?.kill('SIGKILL');
  process.on('exit', killOnExit);

  const launch = async () => {
    const out = openSync(logFile, 'a');
    const started = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', out, out],
    });
    closeSync(out);
    child = started;
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    let gone = false;
    void exited.then(() => (gone = true));
    try {
      await waitFor(
        async () => {
          if (gone) throw new Error(`the service exited while starting:\n${tail(log())}`);
          const version = `${url}/devnet/api/v1/version`;
          const status = await fetch(version, { signal: AbortSignal.timeout(2_000) })
            .then(async (response) => {
              await response.text();
              return response.status;
            })
            .catch(() => null);
          return status === 200;
        },
        { timeoutMs: START_DEADLINE_MS, intervalMs: 50, description: `the service on ${url}` },
      );
    } catch (error) {
      await terminate();
      throw error;
    }
  };

  const signal = async (name: NodeJS.Signals) => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    running.kill(name);
    await withDeadline(exited, STOP_DEADLINE_MS, `the service's exit after ${name}`);
  };
  const terminate = async () => {
    try {
      await signal('SIGTERM');
    } catch {
      await signal('SIGKILL');
    }
    child = null;
  };

  try {
    await launch();
  } catch (error) {
    process.off('exit', killOnExit);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    devnet: `${url}/devnet`,
    get pid() {
      const running = child !== null && child.exitCode === null && child.signalCode === null;
      return running ? (child!.pid ?? null) : null;
    },
    async kill() {
      await signal('SIGKILL');
      child = null;
    },
    restart: launch,
    async stop() {
      await terminate();
      process.off('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
    log,
  };
}

function tail(text: string): string {
  return text.slice(-LOG_TAIL_CHARS);
}
