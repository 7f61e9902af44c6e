/**
 * `npm start` itself, as a newcomer runs it: npm, the service it launches, and the embedded
 * PostgreSQL and anvil the service starts in its data directory. For the suites that kill parts
 * of that tree and start it again. Each start logs to a file of its own in the data directory's
 * parent, read back when a test fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface NpmStart {
  /** The npm process. */
  npm: ChildProcess;
  /** Resolves with npm's exit code once it has exited. */
  exited: Promise<number | null>;
  log(): string;
}

/** `npm start` in `checkout` (this repository by default) with only `env` and PATH and HOME. */
export function npmStart(env: Record<string, string>, logFile: string, checkout = ROOT): NpmStart {
  const out = openSync(logFile, 'a');
  const npm = spawn('npm', ['start'], {
    cwd: checkout,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  return { npm, exited, log: () => readFileSync(logFile, 'utf8') };
}

/** Resolves once `url` answers 200 (any process may be the one answering). */
export async function serving(url: string, timeoutMs: number): Promise<void> {
  await waitFor(
    () =>
      fetch(url, { signal: AbortSignal.timeout(2_000) })
        .then(async (response) => {
          await response.text();
          return response.ok;
        })
        .catch(() => false),
    { timeoutMs, intervalMs: 100, description: `${url} to answer` },
  );
}
