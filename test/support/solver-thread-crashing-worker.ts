/**
 * The module of a solver thread (./solver-thread-crashing.ts) that ends, as a thread that hits a
 * bug would, whenever it is sent the auction `POISONED_AUCTION_ID`, and spins for ever on
 * `ENDLESS_AUCTION_ID`, as a solve that never converges would; every other auction it solves as
 * the real one (src/auction/solver-thread/worker.ts) does.
 */
import { parentPort } from 'node:worker_threads';
import type { ToSolverThread } from '../../src/auction/solver-thread/messages.js';
import {
  CRASH_EXIT_CODE,
  ENDLESS_AUCTION_ID,
  POISONED_AUCTION_ID,
} from './solver-thread-crashing.js';

// The real module listens first (a port delivers its messages once anyone listens); its answer
// is posted a turn later, after this listener has ended the thread.
await import('../../src/auction/solver-thread/worker.js');
parentPort!.on('message', (message: ToSolverThread) => {
  if (message.auction.id === POISONED_AUCTION_ID) process.exit(CRASH_EXIT_CODE);
  // Its answer, posted a turn later, never leaves.
  if (message.auction.id === ENDLESS_AUCTION_ID) for (;;);
});
