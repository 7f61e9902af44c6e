/**
 * The tokens the book trades on a network: the sell and buy tokens of its placed orders. The
 * token-holder indexer (src/chain/token-holders.ts) keeps the holders of these.
 */
import type { Knex } from 'knex';
import type { Address } from '../domain/events.js';
import { table } from './schema.js';

/** Every token an order of the network sells or buys, once each, in no particular order. */
export type TradedTokensQuery = (network: string) => Promise<Address[]>;

export function createTradedTokensQuery(db: Knex, schema = 'read'): TradedTokensQuery {
  const orders = table(schema, 'orders');
  // UNION removes the duplicates: far fewer tokens than orders.
  const sql = `SELECT sell_token AS token FROM ${orders} WHERE network = ?
    UNION SELECT buy_token FROM ${orders} WHERE network = ?`;
  return async (network) => {
    const { rows } = await db.raw<{ rows: { token: Address }[] }>(sql, [network, network]);
    return rows.map((row) => row.token);
  };
}
