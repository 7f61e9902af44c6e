/**
 * The module of a projection thread started by ./projection-thread-ending.ts: the real one
 * (src/projection-thread-worker.ts) that ends once, mid-run, right after it reports its first
 * checkpoint once it is ready: by exiting, as a thread that hits a bug would end, or (with
 * `END_BY` = `out-of-memory`) by holding ever more memory until V8 stops it at its heap bound,
 * as a projector that leaks would. "Once" is a marker file named by `END_ONCE_MARKER` in the
 * environment the thread starts with (a copy of the process's at that moment): the thread that
 * removes it ends; the threads started again after it find it gone and run as the real one.
 */
import { rmSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { FromProjectionThread } from '../../src/projection-thread-messages.js';
import { END_BY, END_ONCE_MARKER, ENDED_ON_PURPOSE } from './projection-thread-ending.js';

const port = parentPort!;
const marker = process.env[END_ONCE_MARKER];
const claimed = (path: string) => {
  try {
    rmSync(path);
    return true;
  } catch {
    return false;
  }
};
let ready = false;
const post = port.postMessage.bind(port);
port.postMessage = (message: FromProjectionThread) => {
  post(message);
  if (message.type === 'ready') ready = true;
  else if (ready && message.type === 'checkpoint' && marker && claimed(marker)) {
    if (process.env[END_BY] === 'out-of-memory') leak();
    process.exit(ENDED_ON_PURPOSE);
  }
};

/** Holds ever more until the heap bound ends the thread: never returns. */
function leak(): never {
  const held: number[][] = [];
  for (;;) held.push(Array.from({ length: 1 << 16 }, (_, i) => i * Math.random()));
}

await import('../../src/projection-thread-worker.js');
