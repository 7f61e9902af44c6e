/**
 * The module of a solver thread (./solver-thread-crashing.ts) that ends, as a thread that hits a
 * bug would, whenever it is sent the auction `POISONED_AUCTION_ID`; every other auction it solves
 * as the real one (src/auction/solver-thread/worker.ts) does.
 */
import { parentPort } from 'node:worker_threads';
import type { ToSolverThread } from '../../src/auction/solver-thread/messages.js';
import { CRASH_EXIT_CODE, POISONED_AUCTION_ID } from './solver-thread-crashing.js';

// The real module listens first (a port delivers its messages once anyone listens); its answer
// is posted a turn later, after this listener has ended the thread.
await import('../../src/auction/solver-thread/worker.js');
parentPort!.on('message', (message: ToSolverThread) => {
  if (message.auction.id === POISONED_AUCTION_ID) process.exit(CRASH_EXIT_CODE);
});
