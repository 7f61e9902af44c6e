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
  /** Newest first; the list omits `quote`, as the reference's does. */
  byOwner(
    network: string,
    owner: Address,
    offset: number,
    limit: number,
    nowSeconds: number,
  ): Promise<ApiOrder[]>;
}

export function createOrderQueries(db: Knex, schema = 'read'): OrderQueries {
  const from = orderSources((name) => table(schema, name));
  const single = `SELECT ${orderColumns(true)} ${from}`;
  // An array binding reaches node-postgres as one text[] parameter.
  const byUidsSql = `${single} WHERE o.network = ? AND o.uid = ANY(?::text[])`;
  const byOwnerSql = `SELECT ${orderColumns(false)} ${from}
    WHERE o.network = ? AND o.owner = ?
    ORDER BY o.creation_date DESC, o.uid LIMIT ? OFFSET ?`;

  const rows = async (sql: string, bindings: readonly Knex.Value[]) =>
    (await db.raw<{ rows: OrderViewRow[] }>(sql, bindings)).rows;
  // Concurrent single-order reads of one network share one query, prepared once per connection.
  const rowsByUidsSql = `${single} WHERE o.network = $1 AND o.uid = ANY($2::text[])`;
  const rowByUid = createCoalescer<OrderUid, OrderViewRow>(async (network, uids) => {
    const found = await preparedRows<OrderViewRow>(db, `orders-by-uids-${schema}`, rowsByUidsSql, [
      network,
      uids,
    ]);
    return new Map(found.map((row) => [row.uid, row]));
  });

  return {
    async byUid(network, uid, nowSeconds) {
      const row = await rowByUid(network, uid);
      return row ? toApiOrder(row, nowSeconds) : null;
    },
    async byUids(network, uids, nowSeconds) {
      if (uids.length === 0) return [];
      const found = await rows(byUidsSql, [network, [...new Set(uids)]]);
      return found.map((row) => toApiOrder(row, nowSeconds));
    },
    async byOwner(network, owner, offset, limit, nowSeconds) {
      const found = await rows(byOwnerSql, [network, owner, limit, offset]);
      return found.map((row) => toApiOrder(row, nowSeconds));
    },
  };
}
