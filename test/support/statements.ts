/** What a piece of code sends to PostgreSQL: every statement any `pg` client runs meanwhile. */
import pg from 'pg';

/** The texts of the statements sent while `run` runs that name `fragment` (a table, say). */
export async function statementsNaming<T>(
  fragment: string,
  run: () => Promise<T>,
): Promise<{ result: T; texts: string[] }> {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const texts: string[] = [];
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const [first] = args;
    const text = typeof first === 'string' ? first : (first as { text?: unknown }).text;
    if (typeof text === 'string' && text.includes(fragment)) texts.push(text);
    return original.apply(this, args);
  };
  try {
    return { result: await run(), texts };
  } finally {
    prototype.query = original;
  }
}
