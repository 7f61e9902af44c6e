/**
 * A solver thread that ends whenever it is sent one auction, and never finishes another
 * (./solver-thread-crashing-worker.ts), to show what a thread ending unasked, or one stuck on a
 * solve, costs.
 */
export const POISONED_AUCTION_ID = '666';
export const ENDLESS_AUCTION_ID = '777';
export const CRASH_EXIT_CODE = 7;
export const CRASHING_SOLVER_WORKER = new URL('./solver-thread-crashing-worker.ts', import.meta.url)
  .href;
