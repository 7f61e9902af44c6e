/**
 * CPU profiles of this thread, one per measured phase: unlike `node --cpu-prof`, neither the
 * setup nor the other phases are mixed in. Open them in Chrome's DevTools.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import inspector from 'node:inspector';
import { promisify } from 'node:util';

export interface PhaseProfiler {
  start(): Promise<void>;
  /** Writes `dir/{prefix}-{phase}.cpuprofile`. */
  stop(phase: number | string): Promise<void>;
}

export function phaseProfiler(dir: string, prefix: string): PhaseProfiler {
  const session = new inspector.Session();
  session.connect();
  const post = promisify(session.post.bind(session)) as (
    method: string,
  ) => Promise<{ profile?: unknown }>;
  return {
    async start() {
      await post('Profiler.enable');
      await post('Profiler.start');
    },
    async stop(phase) {
      const { profile } = await post('Profiler.stop');
      await mkdir(dir, { recursive: true });
      await writeFile(`${dir}/${prefix}-${phase}.cpuprofile`, JSON.stringify(profile));
    },
  };
}
