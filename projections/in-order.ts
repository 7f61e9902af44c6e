/**
 * A `ProjectionTransaction` over knex whose statements run one after another, in the order
 * `raw` is called: projectors send independent statements together (`Promise.all`), which a
 * pipelined batch connection runs in that order by itself (batch-transaction.ts), while knex
 * would start each as soon as it is called, and on a pool even on different connections.
 */
import type { Knex } from 'knex';
import type { ProjectionTransaction } from './projector.js';

export function inOrder(db: Knex | Knex.Transaction): ProjectionTransaction {
  let previous: Promise<unknown> = Promise.resolve();
  return {
    raw(sql, bindings = []) {
      const next = previous.then(() => db.raw(sql, [...bindings]));
      // The next statement waits for this one to end, whether it succeeded or not.
      previous = next.catch(() => undefined);
      return next;
    },
  };
}
