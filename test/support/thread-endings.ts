/**
 * Threads of the service that end unasked, mid-run, a given number of times, to show that the
 * service thread starts them again and that their work resumes. A test arms the endings; the
 * thread's module, wrapped (./projection-thread-ending-worker.ts,
 * ./auction-thread-ending-worker.ts), claims one where it ends. How many are left is counted down
 * in a file named by `END_MARKER` in the environment a thread starts with (a copy of the
 * process's at that moment): once none is left, the threads started again run as the real ones.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The exit code the thread ends with, for the test to recognise it. */
export const ENDED_ON_PURPOSE = 70;
/** The environment variable naming the file that counts the endings left. */
const END_MARKER = 'BATCHBOOK_TEST_END_MARKER';
/** The environment variable saying how it ends: `exit` (the default) or `out-of-memory`. */
const END_BY = 'BATCHBOOK_TEST_END_BY';

export type EndBy = 'exit' | 'out-of-memory';

/**
 * Arms `times` endings for the threads started from now on; resolves to what disarms them (the
 * variables stay while the threads run: each thread started again copies them too).
 */
export async function armEndings(times: number, endBy: EndBy): Promise<() => Promise<void>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'batchbook-thread-'));
  const marker = path.join(dir, 'endings-left');
  await writeFile(marker, String(times));
  process.env[END_MARKER] = marker;
  process.env[END_BY] = endBy;
  return async () => {
    delete process.env[END_MARKER];
    delete process.env[END_BY];
    await rm(dir, { recursive: true, force: true });
  };
}

/**
 * On the thread: takes one of the endings left, and says how to end; null when none is left (or
 * the marker is gone: the test removes it as it stops). One thread of a kind runs at a time, so
 * no other reads the count meanwhile.
 */
export function claimEnding(): EndBy | null {
  const marker = process.env[END_MARKER];
  if (!marker) return null;
  let left: number;
  try {
    left = Number(readFileSync(marker, 'utf8'));
  } catch {
    return null;
  }
  if (!(left > 0)) return null;
  writeFileSync(marker, String(left - 1));
  return process.env[END_BY] === 'out-of-memory' ? 'out-of-memory' : 'exit';
}
