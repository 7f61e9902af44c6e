/**
 * Quote lookups for order placement, in the quote store (src/commands/quote-store.ts): by id,
 * and the unexpired quotes of a pair and kind.
 */
import type { Knex } from 'knex';
import { QUOTE_STORE_SCHEMA } from '../commands/quote-store.js';
import type { Address, OrderKind } from '../domain/events.js';
import type { StoredQuote } from '../domain/quote.js';
import { createCoalescer } from './coalescer.js';
import { preparedRows } from './prepared.js';
import { table } from './schema.js';

export interface QuoteQueries {
  byId(network: string, id: number): Promise<StoredQuote | null>;
  /** The newest 100 quotes of the pair and kind that expire after `now`, newest first. */
  unexpired(
    network: string,
    pair: { sellToken: Address; buyToken: Address; kind: OrderKind },
    now: Date,
  ): Promise<StoredQuote[]>;
}

/** One `unexpired` lookup as the coalescer's key: JSON of network, tokens, kind and ISO `now`. */
type Lookup = [network: string, sellToken: string, buyToken: string, kind: string, now: string];

export function createQuoteQueries(db: Knex): QuoteQueries {
  const quotes = table(QUOTE_STORE_SCHEMA, 'quotes');
  // Every lookup asked for in one turn of the event loop, whatever its network, in one statement:
  // each parameter row runs the lone lookup's indexed query (quotes_by_pair) under its ordinal.
  const unexpiredSql = `SELECT k.ord::int AS ord, q.quote
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
      WITH ORDINALITY AS k(network, sell_token, buy_token, kind, now, ord)
    CROSS JOIN LATERAL (
      SELECT id, quote FROM ${quotes}
      WHERE network = k.network AND sell_token = k.sell_token AND buy_token = k.buy_token
        AND kind = k.kind AND expiration > k.now
      ORDER BY id DESC LIMIT 100) q
    ORDER BY k.ord, q.id DESC`;
  const unexpiredOf = createCoalescer<string, StoredQuote[]>(async (_group, keys) => {
    const lookups = keys.map((key) => JSON.parse(key) as Lookup);
    const columns = [0, 1, 2, 3, 4].map((i) => lookups.map((lookup) => lookup[i]));
    const rows = await preparedRows<{ ord: number; quote: StoredQuote }>(
      db,
      'quotes-unexpired',
      unexpiredSql,
      columns,
    );
    const found = new Map<string, StoredQuote[]>();
    for (const { ord, quote } of rows) {
      const key = keys[ord - 1]!;
      const list = found.get(key);
      if (list) list.push(quote);
      else found.set(key, [quote]);
    }
    return found;
  });

  return {
    async byId(network, id) {
      // Quote ids count up from 1; an id a double cannot hold exactly (the schema admits any
      // i64) names no quote, and as a bigint parameter it would read as out of range.
      if (!Number.isSafeInteger(id)) return null;
      const { rows } = await db.raw<{ rows: { quote: StoredQuote }[] }>(
        `SELECT quote FROM ${quotes} WHERE network = ? AND id = ?`,
        [network, id],
      );
      return rows[0]?.quote ?? null;
    },
    async unexpired(network, pair, now) {
      const lookup: Lookup = [network, pair.sellToken, pair.buyToken, pair.kind, now.toISOString()];
      // Identical lookups in one turn share the fetched list: each caller gets its own copy.
      return [...((await unexpiredOf('', JSON.stringify(lookup))) ?? [])];
    },
  };
}
