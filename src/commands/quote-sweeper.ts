/**
 * Deletes expired quotes from the quote store every interval, on the service's clock. Every
 * instance sweeps: a deletion is the same whoever makes it, and one that finds the rows gone
 * deletes nothing. A failed sweep (the database away) is logged; the next one catches up.
 */
import type { Logger } from 'pino';
import type { QuoteStore } from './quote-store.js';

export interface QuoteSweeperOptions {
  store: Pick<QuoteStore, 'sweep'>;
  clock: () => Date;
  intervalMs: number;
  logger: Logger;
}

export function startQuoteSweeper(options: QuoteSweeperOptions): { stop(): Promise<void> } {
  const { store, clock, intervalMs, logger } = options;
  let running: Promise<void> | null = null;
  const sweep = async () => {
    try {
      const deleted = await store.sweep(clock());
      if (deleted > 0) logger.debug({ deleted }, 'expired quotes swept');
    } catch (error) {
      logger.warn({ err: error }, 'quote sweep failed; the next one retries');
    }
  };
  const timer = setInterval(() => {
    // A sweep still running when the next is due covers it.
    running ??= sweep().finally(() => (running = null));
  }, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
