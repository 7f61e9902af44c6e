/**
 * Starts a TypeScript module on a worker thread. The process runs TypeScript through tsx's
 * `--import` hook, which Node 20 does not apply to worker threads: the worker starts with a
 * plain JavaScript module that registers tsx, then loads the TypeScript one.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';

const BOOTSTRAP = new URL('./typescript-worker-bootstrap.mjs', import.meta.url);

/**
 * Starts `moduleUrl` (a file URL, e.g. built from `import.meta.url`) with `data` as workerData,
 * its heap bounded by `resourceLimits` when given.
 */
export function startTypeScriptWorker(
  moduleUrl: string,
  data: unknown,
  resourceLimits?: ResourceLimits,
): Worker {
  return new Worker(BOOTSTRAP, { workerData: data, argv: [moduleUrl], resourceLimits });
}
