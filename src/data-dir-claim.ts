/**
 * One batchbook at a time in a data directory: the embedded PostgreSQL cluster and the devnet's
 * chain there belong to the process that holds the claim (`<DATA_DIR>/batchbook.pid`). A claim
 * whose process is gone (killed, out of memory, a container's hard stop) is stale: the next start
 * takes it over, and whatever servers that process left running are its own to stop. A live
 * holder that is stopping is waited for, so a restart right after a crash needs no manual step;
 * a live holder that serves is never touched, and the start says who holds the directory.
 */
import { link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isRunning, processStart } from './process-table.js';
import { StartupError } from './startup-error.js';

export interface DataDirClaim {
  /** Tells a start waiting for this directory that this process is on its way out. */
  markStopping(): Promise<void>;
  /** Gives the directory up (only if the claim is still this process's). */
  release(): Promise<void>;
}

export interface ClaimOptions {
  /** How long a holder that says it is stopping may take before the start gives up. */
  stoppingDeadlineMs: number;
  /**
   * How long a holder that says it serves may take to say it stops: a service whose launcher
   * was killed notices within a second (src/launcher-watch.ts).
   */
  servingGraceMs: number;
}

export const DEFAULT_CLAIM_OPTIONS: ClaimOptions = {
  stoppingDeadlineMs: 60_000,
  servingGraceMs: 3_000,
};

interface Holder {
  pid: number;
  /** processStart() of the holder: a pid reused after a crash is not the holder. */
  start: string | null;
  state: 'running' | 'stopping';
}

const POLL_MS = 100;

export function claimFile(dataDir: string): string {
  return path.join(dataDir, 'batchbook.pid');
}

export async function claimDataDir(
  dataDir: string,
  options: ClaimOptions = DEFAULT_CLAIM_OPTIONS,
): Promise<DataDirClaim> {
  const file = claimFile(dataDir);
  await mkdir(dataDir, { recursive: true });
  const self: Holder = {
    pid: process.pid,
    start: await processStart(process.pid),
    state: 'running',
  };
  const began = Date.now();
  for (;;) {
    if (await createClaim(file, self)) break;
    const holder = await readHolder(file);
    if (holder === null || !(await holds(holder))) {
      // Stale (or unreadable, so written by no live batchbook): take it over whole.
      await writeAtomically(file, self);
      if (await isOurs(file, self)) break;
      continue;
    }
    const waited = Date.now() - began;
    const deadline =
      holder.state === 'stopping' ? options.stoppingDeadlineMs : options.servingGraceMs;
    if (waited >= deadline) {
      throw new StartupError(
        holder.state === 'stopping'
          ? `DATA_DIR ${dataDir} is still held by batchbook (pid ${holder.pid}), which has been stopping for over ${Math.round(waited / 1000)} s: stop it (kill ${holder.pid}), or give this one another DATA_DIR`
          : `DATA_DIR ${dataDir} is in use by a running batchbook (pid ${holder.pid}): stop it first, or give this one another DATA_DIR`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return {
    markStopping: async () => {
      if (await isOurs(file, self)) await writeAtomically(file, { ...self, state: 'stopping' });
    },
    release: async () => {
      if (await isOurs(file, self)) await unlink(file).catch(() => undefined);
    },
  };
}

/** Creates the claim whole, or finds it taken: a link appears with its content, atomically. */
async function createClaim(file: string, holder: Holder): Promise<boolean> {
  const draft = `${file}.${process.pid}.draft`;
  await writeFile(draft, JSON.stringify(holder));
  try {
    await link(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

async function writeAtomically(file: string, holder: Holder): Promise<void> {
  const draft = `${file}.${process.pid}.draft`;
  await writeFile(draft, JSON.stringify(holder));
  await rename(draft, file);
}

async function readHolder(file: string): Promise<Holder | null> {
  const raw = await readFile(file, 'utf8').catch(() => null);
  if (raw === null) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<Holder>;
    if (typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid)) return null;
    return {
      pid: parsed.pid,
      start: typeof parsed.start === 'string' ? parsed.start : null,
      state: parsed.state === 'stopping' ? 'stopping' : 'running',
    };
  } catch {
    return null;
  }
}

/** Whether the claim's process is alive and is the one that wrote it. */
async function holds(holder: Holder): Promise<boolean> {
  if (holder.pid === process.pid || !(await isRunning(holder.pid))) return false;
  if (holder.start === null) return true;
  return (await processStart(holder.pid)) === holder.start;
}

async function isOurs(file: string, self: Holder): Promise<boolean> {
  const holder = await readHolder(file);
  return holder !== null && holder.pid === self.pid && holder.start === self.start;
}
