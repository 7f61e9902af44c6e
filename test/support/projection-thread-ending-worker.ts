/**
 * The module of a projection thread started by ./projection-thread-ending.ts: the real one
 * (src/projection-thread/worker.ts) that ends, mid-run, right after it reports its first
 * checkpoint once it is ready, while an ending is armed (./thread-endings.ts): by exiting, as a
 * thread that hits a bug would end, or by holding ever more memory until V8 stops it at its heap
 * bound, as a projector that leaks would.
 */
import { parentPort } from 'node:worker_threads';
import type { FromProjectionThread } from '../../src/projection-thread/messages.js';
import type { FromSupervisedThread } from '../../src/threads/supervision-messages.js';
import { claimEnding, ENDED_ON_PURPOSE } from './thread-endings.js';

const port = parentPort!;
let ready = false;
const post = port.postMessage.bind(port);
port.postMessage = (message: FromProjectionThread | FromSupervisedThread) => {
  post(message);
  if (message.type === 'ready') ready = true;
  else if (ready && message.type === 'checkpoint') {
    const ending = claimEnding();
    if (ending === 'out-of-memory') leak();
    if (ending) process.exit(ENDED_ON_PURPOSE);
  }
};

/** Holds ever more until the heap bound ends the thread: never returns. */
function leak(): never {
  const held: number[][] = [];
  for (;;) held.push(Array.from({ length: 1 << 16 }, (_, i) => i * Math.random()));
}

await import('../../src/projection-thread/worker.js');
