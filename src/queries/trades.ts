/**
 * Trade queries behind GET /trades (v1 and v2) and GET /transactions/{txHash}/orders. Hex
 * arguments are expected in canonical lowercase form.
 */
import type { Knex } from 'knex';
import type { Address, Hex, OrderUid } from '../domain/events.js';
import type { ApiOrder } from './order-view.js';
import type { OrderQueries } from './orders.js';
import { preparedRows } from './prepared.js';
import { table } from './schema.js';

/** The API's `Trade` (reference §1.2); amounts are decimal strings. */
export interface ApiTrade {
  blockNumber: number;
  logIndex: number;
  orderUid: OrderUid;
  owner: Address;
  sellToken: Address;
  buyToken: Address;
  /** Fee included. */
  sellAmount: string;
  sellAmountBeforeFees: string;
  buyAmount: string;
  txHash: Hex;
  /** Protocol fees are not recorded yet (TradeSettled carries none), so always empty. */
  executedProtocolFees: [];
}

/** Exactly one of the two, as the API demands. */
export type TradeFilter = { owner: Address } | { orderUid: OrderUid };

export interface TradeQueries {
  /** Newest first (block number, then log index, descending); `limit` null: all of them. */
  trades(
    network: string,
    filter: TradeFilter,
    offset: number,
    limit: number | null,
  ): Promise<ApiTrade[]>;
  /** The orders traded in `txHash`, in the order of their first trade, without `quote`. */
  ordersInTransaction(network: string, txHash: Hex, nowSeconds: number): Promise<ApiOrder[]>;
}

interface TradeRow {
  block_number: string;
  log_index: number;
  order_uid: OrderUid;
  owner: Address;
  sell_token: Address;
  buy_token: Address;
  sell_amount: string;
  sell_amount_before_fees: string;
  buy_amount: string;
  tx_hash: Hex;
}

const toApiTrade = (row: TradeRow): ApiTrade => ({
  blockNumber: Number(row.block_number),
  logIndex: row.log_index,
  orderUid: row.order_uid,
  owner: row.owner,
  sellToken: row.sell_token,
  buyToken: row.buy_token,
  sellAmount: row.sell_amount,
  sellAmountBeforeFees: row.sell_amount_before_fees,
  buyAmount: row.buy_amount,
  txHash: row.tx_hash,
  executedProtocolFees: [],
});

export function createTradeQueries(db: Knex, orders: OrderQueries, schema = 'read'): TradeQueries {
  const trades = table(schema, 'trades');
  // The block hash only breaks ties a canonical chain never has; it keeps pages stable anyway.
  const filtered = (column: 'owner' | 'order_uid') => `SELECT block_number, log_index,
      order_uid, owner, sell_token, buy_token, sell_amount::text AS sell_amount,
      (sell_amount - fee_amount)::text AS sell_amount_before_fees, buy_amount::text AS buy_amount,
      tx_hash
    FROM ${trades} WHERE network = $1 AND ${column} = $2
    ORDER BY block_number DESC, log_index DESC, block_hash LIMIT $3 OFFSET $4`;
  const byOwnerSql = filtered('owner');
  const byOrderSql = filtered('order_uid');
  const uidsInTxSql = `SELECT order_uid FROM ${trades} WHERE network = ? AND tx_hash = ?
    ORDER BY block_number, log_index`;

  return {
    async trades(network, filter, offset, limit) {
      const [name, sql, value] =
        'owner' in filter
          ? ['trades-by-owner', byOwnerSql, filter.owner]
          : ['trades-by-order', byOrderSql, filter.orderUid];
      // Prepared (./prepared.ts), as the other client-facing lists. LIMIT NULL is no limit.
      const rows = await preparedRows<TradeRow>(db, `${name}-${schema}`, sql, [
        network,
        value,
        limit,
        offset,
      ]);
      return rows.map(toApiTrade);
    },
    async ordersInTransaction(network, txHash, nowSeconds) {
      const { rows } = await db.raw<{ rows: { order_uid: OrderUid }[] }>(uidsInTxSql, [
        network,
        txHash,
      ]);
      const uids = [...new Set(rows.map((r) => r.order_uid))];
      const found = new Map(
        (await orders.byUids(network, uids, nowSeconds)).map((o) => [o.uid, o]),
      );
      return uids.flatMap((uid) => {
        const order = found.get(uid);
        if (!order) return [];
        // Listed like an account's orders: without the quote (byUids reads single orders).
        delete order.quote;
        return [order];
      });
    },
  };
}
