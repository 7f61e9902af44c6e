/**
 * Runs a bench's load generator on a worker thread, so that its own JSON and socket work (and
 * its heap) stay off the service's thread.
 */
import { Worker } from 'node:worker_threads';

/** Starts `moduleUrl` (a bench file's `import.meta.url`) on a worker with `data` as workerData. */
export function startBenchWorker(moduleUrl: string, data: unknown): Worker {
  // Node 20 does not run `--import tsx` in workers: register tsx there, then load the file.
  const bootstrap =
    `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\n` +
    `register();\nawait import(${JSON.stringify(moduleUrl)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), {
    workerData: data,
  });
}
