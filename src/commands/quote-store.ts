/**
 * The quote store: every quote `POST /quote` gives, until it expires, in schema `quote_store`.
 * Quotes are ephemeral: an order carries the quote it linked inside its own `OrderPlaced`, so
 * replays never need the store, and no one needs a quote past its expiration. So they stay out
 * of the ledger, which keeps everything for good, and the sweep (./quote-sweeper.ts) deletes
 * them once expired, as the reference's periodic cleanup does. Not a read model: a replay
 * leaves it alone, and its table changes by store migrations (MIGRATIONS.md).
 *
 * The table is UNLOGGED: storing a quote waits for no WAL flush, and a crash of PostgreSQL
 * empties it (an order placed after that is quoted afresh, as one placed after expiry is).
 * Ids come from the sequence the ledger's `QuoteCreated` events took theirs from, so no id is
 * given twice.
 */
import type { Knex } from 'knex';
import type { StoredQuote } from '../domain/quote.js';

/** Where the store lives: its lookups (src/queries/quotes.ts) read the same table. */
export const QUOTE_STORE_SCHEMA = 'quote_store';
const QUOTES = `${QUOTE_STORE_SCHEMA}.quotes`;

export interface QuoteStore {
  /** Stores the quote under the next id, which it answers. */
  add(quote: Omit<StoredQuote, 'id'>): Promise<number>;
  /** The next id, for a quote that is not stored (an order's own, which its order carries). */
  nextId(): Promise<number>;
  /** Deletes the quotes expired at `now`; answers how many. */
  sweep(now: Date): Promise<number>;
  /** How many quotes it holds, per network that has any. */
  counts(): Promise<Map<string, number>>;
}

/**
 * Ids of orders' own quotes are reserved from the sequence this many at a time: a burst of
 * orders placed without a quote costs one round trip, not one each. Ids a stopped process had
 * reserved are never given, as a sequence's ids never are once taken.
 */
export const RESERVED_IDS = 64;

export function createQuoteStore(db: Knex): QuoteStore {
  const spare: number[] = [];
  // Callers finding no spare id while a reservation is under way wait for it.
  let refill: Promise<void> | null = null;
  const reserve = async () => {
    const { rows } = await db.raw<{ rows: { id: string }[] }>(
      "SELECT nextval('batchbook_quote_ids') AS id FROM generate_series(1, ?)",
      [RESERVED_IDS],
    );
    spare.push(...rows.map((row) => Number(row.id)));
  };
  return {
    async add(quote) {
      const { rows } = await db.raw<{ rows: { id: string }[] }>(
        `INSERT INTO ${QUOTES} (network, id, sell_token, buy_token, kind, expiration, quote)
         SELECT ?, n.id, ?, ?, ?, ?, ?::jsonb || jsonb_build_object('id', n.id)
         FROM (SELECT nextval('batchbook_quote_ids') AS id) n
         RETURNING id`,
        [
          quote.network,
          quote.quote.sellToken,
          quote.quote.buyToken,
          quote.quote.kind,
          quote.expiration,
          JSON.stringify(quote),
        ],
      );
      return Number(rows[0]!.id);
    },
    async nextId() {
      while (spare.length === 0) await (refill ??= reserve().finally(() => (refill = null)));
      return spare.shift()!;
    },
    async sweep(now) {
      const { rowCount } = await db.raw<{ rowCount: number | null }>(
        `DELETE FROM ${QUOTES} WHERE expiration <= ?`,
        [now.toISOString()],
      );
      return rowCount ?? 0;
    },
    async counts() {
      const { rows } = await db.raw<{ rows: { network: string; quotes: number }[] }>(
        `SELECT network, count(*)::int AS quotes FROM ${QUOTES} GROUP BY network`,
      );
      return new Map(rows.map((row) => [row.network, row.quotes]));
    },
  };
}
