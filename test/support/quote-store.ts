/** What a service's quote store holds, read from its database. */
import pg from 'pg';
import type { StoredQuote } from '../../src/domain/quote.js';

export async function storedQuote(
  databaseUrl: string,
  network: string,
  id: number,
): Promise<StoredQuote | null> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ quote: StoredQuote }>(
      'SELECT quote FROM quote_store.quotes WHERE network = $1 AND id = $2',
      [network, id],
    );
    return rows[0]?.quote ?? null;
  } finally {
    await db.end();
  }
}
