/** The latest auction of a network, as `GET /api/v1/auction` serves it (reference `Auction`). */
import type { Knex } from 'knex';
import type { Address, AuctionOrder, OrderUid } from '../domain/events.js';
import { auctionOrder } from './auction-order.js';
import { orderColumns, orderSources, toApiOrder, type OrderViewRow } from './order-view.js';
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

interface AuctionRow {
  id: string;
  block: string;
  cut_at: string;
  prices: Record<Address, string>;
  order_uids: OrderUid[];
  order_executed: string[];
}

export function createAuctionQueries(db: Knex, schema = 'read'): AuctionQueries {
  const t = (name: string) => table(schema, name);
  const auctionSql = `SELECT id, block, extract(epoch FROM cut_at)::bigint AS cut_at, prices,
      order_uids, order_executed::text[] AS order_executed
    FROM ${t('auctions')} WHERE network = ? ORDER BY id DESC LIMIT 1`;
  // An auction names its orders; the rest of each is in the orders read model, which holds
  // every order before an auction can name it (the cut takes its orders from there).
  const ordersSql = `SELECT ${orderColumns(false)} ${orderSources(t)}
    JOIN unnest(?::text[]) WITH ORDINALITY AS named(uid, n) ON named.uid = o.uid
    WHERE o.network = ? ORDER BY named.n`;
  return {
    async latest(network) {
      const { rows } = await db.raw<{ rows: AuctionRow[] }>(auctionSql, [network]);
      const auction = rows[0];
      if (!auction) return null;
      const uids = auction.order_uids;
      const placed = await db.raw<{ rows: OrderViewRow[] }>(ordersSql, [uids, network]);
      const executed = new Map(uids.map((uid, i) => [uid, auction.order_executed[i]!]));
      const cutAt = Number(auction.cut_at);
      return {
        id: Number(auction.id),
        block: Number(auction.block),
        // As the auction took them in: what had executed by its cut, the status at its cut.
        orders: placed.rows.map((row) =>
          auctionOrder(toApiOrder(row, cutAt), executed.get(row.uid)!),
        ),
        prices: auction.prices,
        surplusCapturingJitOrderOwners: [],
      };
    },
  };
}
