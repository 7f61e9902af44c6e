/**
 * The module of a projection thread started by ./projection-thread-ending.ts: the real one
 * (src/projection-thread/worker.ts) that ends, mid-run, right after it reports its first
 * checkpoint once it is ready: by exiting, as a thread that hits a bug would end, or (with
 * `END_BY` = `out-of-memory`) by holding ever more memory until V8 stops it at its heap bound,
 * as a projector that leaks would. How many threads end so is counted down in a file named by
 * `END_MARKER` in the environment the thread starts with (a copy of the process's at that
 * moment): a thread that takes one of the endings left ends; once none is left, the threads
 * started again run as the real one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { FromProjectionThread } from '../../src/projection-thread/messages.js';
import type { FromSupervisedThread } from '../../src/threads/supervision-messages.js';
import { END_BY, END_MARKER, ENDED_ON_PURPOSE } from './projection-thread-ending.js';

const port = parentPort!;
const marker = process.env[END_MARKER];
/**
 * Takes one of the endings left; one thread runs at a time, so no other reads it meanwhile. None
 * once the file is gone (the test removes it as it stops).
 */
const claimed = (path: string) => {
  let left: number;
  try {
    left = Number(readFileSync(path, 'utf8'));
  } catch {
    return false;
  }
  if (!(left > 0)) return false;
  writeFileSync(path, String(left - 1));
  return true;
};
let ready = false;
const post = port.postMessage.bind(port);
port.postMessage = (message: FromProjectionThread | FromSupervisedThread) => {
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

await import('../../src/projection-thread/worker.js');
