/**
 * Statements that run one after another, in the order they are sent, also when the sender does
 * not wait for one before the next: projectors send independent statements together
 * (`Promise.all`), which a pipelined connection runs in that order by itself
 * (batch-transaction.ts), while knex would start each as soon as it is called (on a pool even on
 * different connections) and a pg client that is not pipelined must not be handed a query while
 * it runs one.
 */
import type { Knex } from 'knex';
import type { ProjectionTransaction } from './projector.js';

/** `run`, called so that each call starts once the call before it has ended, however it ended. */
export function oneAtATime<Args extends unknown[], Result>(
  run: (...args: Args) => PromiseLike<Result>,
): (...args: Args) => Promise<Result> {
  let previous: Promise<unknown> = Promise.resolve();
  return (...args) => {
    const next = previous.then(() => run(...args));
    previous = next.catch(() => undefined);
    return next;
  };
}

/** A `ProjectionTransaction` over knex (a transaction; a pool in tests) that keeps that order. */
export function inOrder(db: Knex | Knex.Transaction): ProjectionTransaction {
  const raw = oneAtATime((sql: string, bindings: readonly Knex.RawBinding[]) =>
    db.raw(sql, [...bindings]),
  );
  return { raw: (sql, bindings = []) => raw(sql, bindings) };
}
