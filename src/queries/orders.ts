/**
 * Order queries behind GET /orders/{uid}, POST /orders/by_uids and GET /account/{owner}/orders.
 * Each is one indexed statement (concurrent single-order reads are coalesced into one); hex
 * arguments are expected in canonical lowercase form.
 */
import type { Knex } from 'knex';
import type { Address, OrderUid } from '../domain/events.js';
import { createCoalescer } from './coalescer.js';
import { preparedRows } from './prepared.js';
import {
  orderColumns,
  orderSources,
  toApiOrder,
  type ApiOrder,
  type OrderViewRow,
} from './order-view.js';
import { table } from './schema.js';

export interface OrderQueries {
  byUid(network: string, uid: OrderUid, nowSeconds: number): Promise<ApiOrder | null>;
  /** Unknown UIDs are left out; the order of the result is unspecified (as the reference's). */
  byUids(network: string, uids: readonly OrderUid[], nowSeconds: number): Promise<ApiOrder[]>;
  /**
   * Newest first, the owner's orders and the eth-flow orders it placed; the list omits `quote`,
   * as the reference's does.
   */
  byOwner(
    network: string,
    owner: Address,
    offset: number,
    limit: number,
    nowSeconds: number,
  ): Promise<ApiOrder[]>;
  /**
   * Every order an auction may include: open (not filled, cancelled, invalidated, expired or
   * waiting for its pre-signature), valid beyond `validAfter` and past its `validFrom`.
   */
  solvable(network: string, nowSeconds: number, validAfter: number): Promise<ApiOrder[]>;
  /**
   * The owner's limit orders that can still trade and ask for more than their quote gave
   * (reference §4.1 step 10's cap counts these).
   */
  liveOutsideMarketLimitOrders(
    network: string,
    owner: Address,
    nowSeconds: number,
  ): Promise<number>;
}

export function createOrderQueries(db: Knex, schema = 'read'): OrderQueries {
  const from = orderSources((name) => table(schema, name));
  // The client-facing reads run as prepared statements (./prepared.ts): PostgreSQL plans this
  // one in ~0.7 ms, several times what running it takes (an owner's page of 10 orders).
  const byOwnerSql = `SELECT ${orderColumns(false)} ${from}
    WHERE o.network = $1 AND (o.owner = $2 OR o.onchain_sender = $2)
    ORDER BY o.creation_date DESC, o.uid LIMIT $3 OFFSET $4`;

  const solvableSql = `SELECT ${orderColumns(false)} ${from}
    WHERE o.network = ? AND o.cancellation_date IS NULL
      AND COALESCE(o.ethflow_user_valid_to, o.valid_to) > ? AND o.placement_error IS NULL
      AND COALESCE(c.onchain_invalidations, 0) = 0 AND COALESCE(c.ethflow_refunds, 0) = 0
      AND COALESCE(o.valid_from, 0) <= ?
    ORDER BY o.creation_date, o.uid`;

  // The quote's amounts as numerics; the comparison is the reference's, in integers.
  const q = (field: string) => `(o.quote->>'${field}')::numeric`;
  const liveOutsideMarketSql = `SELECT o.owner, count(*)::int AS n ${from}
    WHERE o.network = $1 AND o.owner = ANY($2::text[]) AND o.class = 'limit'
      AND o.quote IS NOT NULL
      AND o.cancellation_date IS NULL AND COALESCE(c.onchain_invalidations, 0) = 0
      AND o.valid_to >= $3
      AND NOT (CASE WHEN o.kind = 'sell'
        THEN COALESCE(c.executed_sell_amount - c.executed_fee_amount, 0) = o.sell_amount
        ELSE COALESCE(c.executed_buy_amount, 0) = o.buy_amount END)
      AND (${q('sellAmount')} = 0 OR CASE WHEN o.kind = 'sell'
        THEN o.sell_amount * (${q('buyAmount')} - div(${q('feeAmount')} * ${q('buyAmount')}, ${q('sellAmount')}))
          < ${q('sellAmount')} * o.buy_amount
        ELSE o.sell_amount * ${q('buyAmount')} < (${q('sellAmount')} + ${q('feeAmount')}) * o.buy_amount
        END)
    GROUP BY o.owner`;
  // The placements of one turn count their owners' orders in one query (the cap's check).
  const liveOutsideMarket = createCoalescer<Address, number>(async (group, owners) => {
    const [network, nowSeconds] = JSON.parse(group) as [string, number];
    const found = await preparedRows<{ owner: Address; n: number }>(
      db,
      `live-outside-market-${schema}`,
      liveOutsideMarketSql,
      [network, owners, nowSeconds],
    );
    return new Map(found.map((row) => [row.owner, row.n]));
  });

  const rows = async (sql: string, bindings: readonly Knex.Value[]) =>
    (await db.raw<{ rows: OrderViewRow[] }>(sql, bindings)).rows;
  const byUidsSql = `SELECT ${orderColumns(true)} ${from}
    WHERE o.network = $1 AND o.uid = ANY($2::text[])`;
  const rowsByUids = (network: string, uids: readonly OrderUid[]) =>
    preparedRows<OrderViewRow>(db, `orders-by-uids-${schema}`, byUidsSql, [network, uids]);
  // Concurrent single-order reads of one network share one query.
  const rowByUid = createCoalescer<OrderUid, OrderViewRow>(async (network, uids) => {
    const found = await rowsByUids(network, uids);
    return new Map(found.map((row) => [row.uid, row]));
  });

  return {
    async byUid(network, uid, nowSeconds) {
      const row = await rowByUid(network, uid);
      return row ? toApiOrder(row, nowSeconds) : null;
    },
    async byUids(network, uids, nowSeconds) {
      if (uids.length === 0) return [];
      const found = await rowsByUids(network, [...new Set(uids)]);
      return found.map((row) => toApiOrder(row, nowSeconds));
    },
    async solvable(network, nowSeconds, validAfter) {
      const found = await rows(solvableSql, [network, validAfter, nowSeconds]);
      return found.map((row) => toApiOrder(row, nowSeconds)).filter((o) => o.status === 'open');
    },
    async liveOutsideMarketLimitOrders(network, owner, nowSeconds) {
      return (await liveOutsideMarket(JSON.stringify([network, nowSeconds]), owner)) ?? 0;
    },
    async byOwner(network, owner, offset, limit, nowSeconds) {
      const found = await preparedRows<OrderViewRow>(db, `orders-by-owner-${schema}`, byOwnerSql, [
        network,
        owner,
        limit,
        offset,
      ]);
      return found.map((row) => toApiOrder(row, nowSeconds));
    },
  };
}
