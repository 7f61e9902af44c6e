/**
 * GET /{chainId}/tokens/{token}/topHolders: the largest balances the token-holder indexer keeps
 * in schema `chain` (src/chain/token-holders-store.ts). Addresses are lowercase.
 */
import type { Knex } from 'knex';
import type { Address } from '../domain/events.js';
import { table } from './schema.js';

export interface TokenHolder {
  address: Address;
  /** Base units, as a decimal string. */
  balance: string;
}

export interface TokenHolderQueries {
  /**
   * Holders with a positive balance, largest first (ties by address), at most `limit`; null when
   * the token's holders are not indexed on the network (no order trades it).
   */
  top(network: string, token: Address, limit: number): Promise<TokenHolder[] | null>;
}

/** The other side of mints and burns; the indexer records none, and it is never a holder. */
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

export function createTokenHolderQueries(db: Knex): TokenHolderQueries {
  const indexedSql = `SELECT 1 FROM ${table('chain', 'token_cursors')}
    WHERE network = ? AND token = ?`;
  // Ordered by the numeric column, named with its table: a bare `balance` in ORDER BY would be
  // the text the SELECT list renders ("4500" above "1500000").
  const topSql = `SELECT holder AS address, balance::text AS balance
    FROM ${table('chain', 'token_balances')} AS b
    WHERE network = ? AND token = ? AND b.balance > 0 AND holder <> ?
    ORDER BY b.balance DESC, holder LIMIT ?`;
  return {
    async top(network, token, limit) {
      const [indexed, top] = await Promise.all([
        db.raw<{ rows: unknown[] }>(indexedSql, [network, token]),
        db.raw<{ rows: TokenHolder[] }>(topSql, [network, token, ZERO_ADDRESS, limit]),
      ]);
      return indexed.rows.length === 0 ? null : top.rows;
    },
  };
}
