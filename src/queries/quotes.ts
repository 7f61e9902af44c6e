/** Quote lookups for order placement: by id, and the unexpired quotes of a pair and kind. */
import type { Knex } from 'knex';
import type { Address, OrderKind, QuoteCreatedV1 } from '../domain/events.js';
import { table } from './schema.js';

export interface QuoteQueries {
  byId(network: string, id: number): Promise<QuoteCreatedV1 | null>;
  unexpired(
    network: string,
    pair: { sellToken: Address; buyToken: Address; kind: OrderKind },
    now: Date,
  ): Promise<QuoteCreatedV1[]>;
}

export function createQuoteQueries(db: Knex, schema = 'read'): QuoteQueries {
  const quotes = table(schema, 'quotes');
  return {
    async byId(network, id) {
      const { rows } = await db.raw<{ rows: { quote: QuoteCreatedV1 }[] }>(
        `SELECT quote FROM ${quotes} WHERE network = ? AND id = ?`,
        [network, id],
      );
      return rows[0]?.quote ?? null;
    },
    async unexpired(network, pair, now) {
      const { rows } = await db.raw<{ rows: { quote: QuoteCreatedV1 }[] }>(
        `SELECT quote FROM ${quotes}
         WHERE network = ? AND sell_token = ? AND buy_token = ? AND kind = ? AND expiration > ?
         ORDER BY id DESC LIMIT 100`,
        [network, pair.sellToken, pair.buyToken, pair.kind, now.toISOString()],
      );
      return rows.map((r) => r.quote);
    },
  };
}
