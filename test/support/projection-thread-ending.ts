/**
 * A projection thread that ends unasked, mid-run, a given number of times
 * (./projection-thread-ending-worker.ts), to show that the service thread starts it again, with
 * what backoff, and that it resumes where it stopped.
 */
import {
  startProjectionThread,
  type ProjectionThreadEngine,
  type ProjectionThreadOptions,
} from '../../src/projection-thread/thread.js';
import { armEndings, type EndBy } from './thread-endings.js';

export { ENDED_ON_PURPOSE } from './thread-endings.js';

const ENDING_URL = new URL('./projection-thread-ending-worker.ts', import.meta.url).href;

/**
 * Starts the thread; it and the next ones end right after their first checkpoint report once
 * ready, `times` threads in all, by exiting or by running out of memory (give `heapLimitMb`, or
 * it takes V8's default bound).
 */
export async function startProjectionThreadEnding(
  options: Omit<ProjectionThreadOptions, 'workerUrl'>,
  { endBy = 'exit', times = 1 }: { endBy?: EndBy; times?: number } = {},
): Promise<ProjectionThreadEngine> {
  const disarm = await armEndings(times, endBy);
  try {
    const engine = await startProjectionThread({ ...options, workerUrl: ENDING_URL });
    return {
      ...engine,
      stop: async () => {
        await engine.stop();
        await disarm();
      },
    };
  } catch (error) {
    await disarm();
    throw error;
  }
}
