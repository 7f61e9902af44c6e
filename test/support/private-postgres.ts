/**
 * A PostgreSQL server of a test's own, which the test may stop and start again: an embedded
 * cluster in a new temp dir, with one empty database `batchbook`, started again on the same port
 * and data directory (the shared test cluster must never go down under other suites).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/postgres/embedded.js';
import { createDatabase } from './postgres.js';

export interface PrivatePostgres {
  /** The connection URL of the database `batchbook`. */
  url: string;
  /** Shuts the server down (fast shutdown: running sessions are terminated). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** Stops the server if it runs and removes its data directory. */
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
  const stop = async () => {
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
    async destroy() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
