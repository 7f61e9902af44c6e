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

/** One auction of a network's recent ones (GET /api/v1/auctions): what to look up further. */
export interface AuctionSummary {
  id: number;
  block: number;
  cutAt: string;
  orders: number;
  filtered: number;
  solutions: number;
}

export interface AuctionQueries {
  latest(network: string): Promise<ApiAuction | null>;
  /** The network's last `limit` recorded auctions, newest first. */
  recent(network: string, limit: number): Promise<AuctionSummary[]>;
}

interface AuctionRow {
  block: string;
  cut_at: string;
  prices: Record<Address, string>;
  order_uids: OrderUid[];
  order_executed: string[];
}

/** The answer for one auction, once built whole. */
interface Built {
  id: string;
  answer: Promise<ApiAuction>;
}

export function createAuctionQueries(db: Knex, schema = 'read'): AuctionQueries {
  const t = (name: string) => table(schema, name);
  const latestIdSql = `SELECT id FROM ${t('auctions')} WHERE network = ? ORDER BY id DESC LIMIT 1`;
  const recentSql = `SELECT a.id, a.block, a.cut_at, cardinality(a.order_uids) AS orders,
      cardinality(a.filtered_uids) AS filtered,
      (SELECT count(*) FROM ${t('competition_solutions')} s
        WHERE s.network = a.network AND s.auction_id = a.id) AS solutions
    FROM ${t('auctions')} a WHERE a.network = ? ORDER BY a.id DESC LIMIT ?`;
  const auctionSql = `SELECT block, extract(epoch FROM cut_at)::bigint AS cut_at, prices,
      order_uids, order_executed::text[] AS order_executed
    FROM ${t('auctions')} WHERE network = ? AND id = ?`;
  // An auction names its orders; the rest of each is in the orders read model, which holds
  // every order before an auction can name it (the cut takes its orders from there).
  const ordersSql = `SELECT ${orderColumns(false)} ${orderSources(t)}
    JOIN unnest(?::text[]) WITH ORDINALITY AS named(uid, n) ON named.uid = o.uid
    WHERE o.network = ? ORDER BY named.n`;

  async function build(
    network: string,
    id: string,
  ): Promise<{ auction: ApiAuction; whole: boolean }> {
    const { rows } = await db.raw<{ rows: AuctionRow[] }>(auctionSql, [network, id]);
    const row = rows[0]!;
    const uids = row.order_uids;
    const placed = await db.raw<{ rows: OrderViewRow[] }>(ordersSql, [uids, network]);
    const executed = new Map(uids.map((uid, i) => [uid, row.order_executed[i]!]));
    const cutAt = Number(row.cut_at);
    const auction = {
      id: Number(id),
      block: Number(row.block),
      // As the auction took them in: what had executed by its cut, the status at its cut.
      orders: placed.rows.map((order) =>
        auctionOrder(toApiOrder(order, cutAt), executed.get(order.uid)!),
      ),
      prices: row.prices,
      surplusCapturingJitOrderOwners: [],
    };
    return { auction, whole: placed.rows.length === uids.length };
  }

  // A recorded auction never changes, nor do the placed fields of its orders: the answer for a
  // network's latest auction is built once (~0.35 s at 10,000 orders) and served until a newer
  // one is recorded. Only a whole answer is kept: while a rebuilt orders read model catches up,
  // an answer missing some of the auction's orders is served but built again next time.
  const latest = new Map<string, Built>();
  const forget = (network: string, answer: Promise<ApiAuction>) => {
    if (latest.get(network)?.answer === answer) latest.delete(network);
  };
  return {
    async recent(network, limit) {
      const { rows } = await db.raw<{
        rows: {
          id: string;
          block: string;
          cut_at: Date;
          orders: number;
          filtered: number;
          solutions: string;
        }[];
      }>(recentSql, [network, limit]);
      return rows.map((row) => ({
        id: Number(row.id),
        block: Number(row.block),
        cutAt: row.cut_at.toISOString(),
        orders: row.orders,
        filtered: row.filtered,
        solutions: Number(row.solutions),
      }));
    },
    async latest(network) {
      const { rows } = await db.raw<{ rows: { id: string }[] }>(latestIdSql, [network]);
      const id = rows[0]?.id;
      if (id === undefined) return null;
      const kept = latest.get(network);
      if (kept?.id === id) return kept.answer;
      const answer: Promise<ApiAuction> = build(network, id).then(
        ({ auction, whole }) => {
          if (!whole) forget(network, answer);
          return auction;
        },
        (error: unknown) => {
          forget(network, answer);
          throw error;
        },
      );
      latest.set(network, { id, answer });
      return answer;
    },
  };
}
