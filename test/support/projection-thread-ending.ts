/**
 * A projection thread that ends unasked, mid-run, a given number of times
 * (./projection-thread-ending-worker.ts), to show that the service thread starts it again, with
 * what backoff, and that it resumes where it stopped.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  startProjectionThread,
  type ProjectionThreadEngine,
  type ProjectionThreadOptions,
} from '../../src/projection-thread/thread.js';

/** The exit code the thread ends with, for the test to recognise it. */
export const ENDED_ON_PURPOSE = 70;
/** The environment variable naming the file that counts the endings left. */
export const END_MARKER = 'BATCHBOOK_TEST_END_MARKER';
/** The environment variable saying how it ends: `exit` (the default) or `out-of-memory`. */
export const END_BY = 'BATCHBOOK_TEST_END_BY';

const ENDING_URL = new URL('./projection-thread-ending-worker.ts', import.meta.url).href;

/**
 * Starts the thread; it and the next ones end right after their first checkpoint report once
 * ready, `times` threads in all, by exiting or by running out of memory (give `heapLimitMb`, or
 * it takes V8's default bound).
 */
export async function startProjectionThreadEnding(
  options: Omit<ProjectionThreadOptions, 'workerUrl'>,
  { endBy = 'exit', times = 1 }: { endBy?: 'exit' | 'out-of-memory'; times?: number } = {},
): Promise<ProjectionThreadEngine> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'batchbook-thread-'));
  const marker = path.join(dir, 'endings-left');
  await writeFile(marker, String(times));
  // Each thread copies the environment as it starts, the ones started again too: the variables
  // stay while the engine runs.
  process.env[END_MARKER] = marker;
  process.env[END_BY] = endBy;
  const cleanUp = async () => {
    delete process.env[END_MARKER];
    delete process.env[END_BY];
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const engine = await startProjectionThread({ ...options, workerUrl: ENDING_URL });
    return {
      ...engine,
      stop: async () => {
        await engine.stop();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
