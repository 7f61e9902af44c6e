/** The latest auction of a network, as `GET /api/v1/auction` serves it (reference `Auction`). */
import type { Knex } from 'knex';
import type { Address, AuctionClosedV2, AuctionOrder } from '../domain/events.js';
import { table } from './schema.js';

export interface ApiAuction {
  id: number;
  block: number;
  orders: AuctionOrder[];
  prices: Record<Address, string>;
  surplusCapturingJitOrderOwners: Address[];
}

export interface AuctionQueries {
  latest(network: string): Promise<ApiAuction | null>;
}

export function createAuctionQueries(db: Knex, schema = 'read'): AuctionQueries {
  const sql = `SELECT auction FROM ${table(schema, 'auctions')} WHERE network = ?
    ORDER BY id DESC LIMIT 1`;
  return {
    async latest(network) {
      const { rows } = await db.raw<{ rows: { auction: AuctionClosedV2 }[] }>(sql, [network]);
      const auction = rows[0]?.auction;
      if (!auction) return null;
      const { id, block, orders, prices } = auction;
      return { id, block, orders, prices, surplusCapturingJitOrderOwners: [] };
    },
  };
}
