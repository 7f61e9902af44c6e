/**
 * Quote ids: strictly increasing numbers, as the reference's `quotes` sequence gives. A quote's
 * id must exist before its `QuoteCreated` event does, so it comes from a database sequence
 * rather than from a projection.
 */
import type pg from 'pg';

export async function createQuoteIds(pool: pg.Pool): Promise<() => Promise<number>> {
  await pool.query('CREATE SEQUENCE IF NOT EXISTS batchbook_quote_ids');
  return async () => {
    const { rows } = await pool.query<{ id: string }>(
      "SELECT nextval('batchbook_quote_ids') AS id",
    );
    return Number(rows[0]!.id);
  };
}
