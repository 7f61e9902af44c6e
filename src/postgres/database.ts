/**
 * Opens the service's PostgreSQL: the external one named by DATABASE_URL, or the embedded
 * server from npm whose cluster lives in `<dataDir>/postgres` and persists between restarts.
 */
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded.js';

export interface Database {
  url: string;
  /** Stops the embedded server, if this process started one. */
  stop(): Promise<void>;
}

const DATABASE_NAME = 'batchbook';

/** Where the embedded server keeps its cluster inside the data directory. */
export function embeddedClusterDir(dataDir: string): string {
  return path.join(dataDir, 'postgres');
}

export async function openDatabase(options: {
  databaseUrl: string | null;
  dataDir: string;
}): Promise<Database> {
  if (options.databaseUrl) return { url: options.databaseUrl, stop: async () => undefined };
  const server = await startEmbeddedPostgres({
    dataDir: embeddedClusterDir(options.dataDir),
    port: 0,
  });
  const admin = new pg.Client({ connectionString: server.url('postgres') });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      DATABASE_NAME,
    ]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } finally {
    await admin.end();
  }
  return { url: server.url(DATABASE_NAME), stop: () => server.stop() };
}
