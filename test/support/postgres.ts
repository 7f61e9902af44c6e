/**
 * One embedded PostgreSQL cluster per test run (started lazily, on the first suite that asks),
 * and a fresh database per suite, empty or with the stores the service's start migrates.
 * Nothing to install: the server comes from npm.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/postgres/embedded.js';
import { migrateStores } from '../../src/postgres/migrations/apply.js';
import { runSingleton } from './run-singleton.js';

const run = runSingleton('postgres', () => ({
  cluster: undefined as Promise<{ handle: EmbeddedPostgresHandle; dir: string }> | undefined,
  databases: 0,
}));

async function startCluster() {
  const dir = await mkdtemp(path.join(tmpdir(), 'batchbook-test-pg-'));
  const handle = await startEmbeddedPostgres({ dataDir: dir, port: 0 });
  return { handle, dir };
}

/** Creates the empty database `name` (a plain identifier) on the cluster of `server`. */
export async function createDatabase(server: EmbeddedPostgresHandle, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: server.url('postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
}

/** Creates an empty database on the shared test cluster and returns its connection URL. */
export async function freshDatabase(): Promise<string> {
  run.cluster ??= startCluster();
  const { handle } = await run.cluster;
  const name = `test_${process.pid}_${++run.databases}_${Date.now()}`;
  await createDatabase(handle, name);
  return handle.url(name);
}

/**
 * A fresh database with the stores (ledger, chain stores, quote store, sequences, outbox) made
 * as the service's start makes them, and its connection URL.
 */
export async function migratedDatabase(): Promise<string> {
  const url = await freshDatabase();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrateStores(pool);
  } finally {
    await pool.end();
  }
  return url;
}

/** The running cluster, for tests that restart PostgreSQL itself. */
export async function testCluster(): Promise<EmbeddedPostgresHandle> {
  run.cluster ??= startCluster();
  return (await run.cluster).handle;
}

export async function stopTestCluster(): Promise<void> {
  if (!run.cluster) return;
  const { handle, dir } = await run.cluster;
  run.cluster = undefined;
  await handle.stop();
  await rm(dir, { recursive: true, force: true });
}
