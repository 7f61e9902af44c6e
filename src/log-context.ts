/**
 * Fields every log line carries while one piece of work runs, whichever logger writes it: a
 * request's id reaches the lines its command handlers, chain reads and ledger write log, though
 * they were handed the service's logger long before the request came.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const context = new AsyncLocalStorage<Readonly<Record<string, unknown>>>();

/** Runs `work` with `fields` on every line logged until it ends (its awaits included). */
export function withLogFields<T>(fields: Readonly<Record<string, unknown>>, work: () => T): T {
  return context.run(fields, work);
}

/** The fields of the work running now (pino's `mixin`). */
export function logFields(): Readonly<Record<string, unknown>> {
  return context.getStore() ?? {};
}
