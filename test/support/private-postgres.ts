/**
 * A PostgreSQL server of a test's own, which the test may stop and start again, or freeze: an
 * embedded cluster in a new temp dir, with one empty database `batchbook`, started again on the
 * same port and data directory (the shared test cluster must never go down under other suites).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/postgres/embedded.js';
import { createDatabase } from './postgres.js';
import { childrenOf, postmasterPid, signalProcess } from './processes.js';

export interface PrivatePostgres {
  /** The connection URL of the database `batchbook`. */
  url: string;
  /** Shuts the server down (fast shutdown: running sessions are terminated). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /**
   * Freezes the server: SIGSTOP to the postmaster, then to each of its processes. It still
   * accepts connections (the kernel queues them) and never answers.
   */
  freeze(): Promise<void>;
  /** SIGCONT to every process `freeze` stopped; idempotent. */
  thaw(): Promise<void>;
  /** Thaws and stops the server if it runs, and removes its data directory. */
  destroy(): Promise<void>;
}

const DATABASE = 'batchbook';

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  // The cluster lives directly in the temp dir: run as root, the server runs as a `postgres`
  // user, which could not enter a root-owned 0700 parent.
  const dir = await mkdtemp(path.join(tmpdir(), 'batchbook-private-pg-'));
  let server: EmbeddedPostgresHandle | null = null;
  try {
    server = await startEmbeddedPostgres({ dataDir: dir, port: 0 });
    await createDatabase(server, DATABASE);
  } catch (error) {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const { port } = server;
  const frozen = new Set<number>();
  // Touches no file and awaits nothing: it must work in any `after` hook whatever failed, and
  // when the test process exits with the server still frozen.
  const thawNow = () => {
    process.off('exit', thawNow);
    for (const pid of frozen) signalProcess(pid, 'SIGCONT');
    frozen.clear();
  };
  const thaw = async () => thawNow();
  const stop = async () => {
    await thaw();
    const running = server;
    server = null;
    await running?.stop();
  };
  return {
    url: server.url(DATABASE),
    stop,
    async start() {
      if (server) throw new Error('the private PostgreSQL is already running');
      server = await startEmbeddedPostgres({ dataDir: dir, port });
    },
    async freeze() {
      if (!server) throw new Error('the private PostgreSQL is not running');
      // The postmaster first: once stopped it starts no process that would escape the freeze.
      const postmaster = await postmasterPid(dir);
      if (frozen.size === 0) process.once('exit', thawNow);
      frozen.add(postmaster);
      signalProcess(postmaster, 'SIGSTOP');
      for (const pid of await childrenOf(postmaster)) {
        frozen.add(pid);
        signalProcess(pid, 'SIGSTOP');
      }
    },
    thaw,
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
