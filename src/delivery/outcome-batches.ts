/**
 * Attempts' outcomes written to the outbox in batches: one write in progress, the next batch
 * collecting meanwhile, so a busy worker makes one round trip for many rows.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { recordOutcomes, type Outcome } from './outbox.js';

export interface OutcomeBatches {
  /** Resolves once the batch holding `outcome` is written, or its write failed (logged). */
  record(outcome: Outcome): Promise<void>;
  /** Resolves when no write is in progress. */
  written(): Promise<void>;
}

export function createOutcomeBatches(db: Knex, maxAttempts: number, log: Logger): OutcomeBatches {
  let pending: { outcome: Outcome; done: () => void }[] = [];
  let flushing: Promise<void> | null = null;
  const flush = async () => {
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        await recordOutcomes(
          db,
          batch.map((p) => p.outcome),
          maxAttempts,
        );
      } catch (error) {
        // The rows keep their lease; when it runs out they are attempted again.
        log.warn(
          { err: error, outcomes: batch.length },
          'recording delivery outcomes failed; the rows will be retried when their lease ends',
        );
      }
      for (const p of batch) p.done();
    }
  };
  return {
    record: (outcome) =>
      new Promise<void>((resolve) => {
        pending.push({ outcome, done: resolve });
        flushing ??= flush().finally(() => (flushing = null));
      }),
    written: async () => {
      await flushing;
    },
  };
}
