/**
 * A projection thread that ends once, unasked, mid-run (./projection-thread-ending-once.ts), to
 * show that the service thread starts it again and that it resumes where it stopped.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ProjectionEngine } from '../../projections/runner.js';
import {
  startProjectionThread,
  type ProjectionThreadOptions,
} from '../../src/projection-thread.js';

/** The exit code the thread ends with, for the test to recognise it. */
export const ENDED_ON_PURPOSE = 70;
/** The environment variable naming the thread's marker file. */
export const END_ONCE_MARKER = 'BATCHBOOK_TEST_END_ONCE_MARKER';
/** The environment variable saying how it ends: `exit` (the default) or `out-of-memory`. */
export const END_BY = 'BATCHBOOK_TEST_END_BY';

const ENDING_ONCE_URL = new URL('./projection-thread-ending-once.ts', import.meta.url).href;

/**
 * Starts the thread; it ends right after its first checkpoint report once it is ready, by
 * exiting or by running out of memory (give `heapLimitMb`, or it takes V8's default bound).
 */
export async function startProjectionThreadEndingOnce(
  options: Omit<ProjectionThreadOptions, 'workerUrl'>,
  endBy: 'exit' | 'out-of-memory' = 'exit',
): Promise<ProjectionEngine> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'batchbook-thread-'));
  const marker = path.join(dir, 'end-once');
  await writeFile(marker, '');
  // The thread copies the environment when it starts: the variable need not outlive that.
  process.env[END_ONCE_MARKER] = marker;
  process.env[END_BY] = endBy;
  try {
    const engine = await startProjectionThread({ ...options, workerUrl: ENDING_ONCE_URL });
    return {
      ...engine,
      stop: async () => {
        await engine.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } finally {
    delete process.env[END_ONCE_MARKER];
    delete process.env[END_BY];
  }
}
