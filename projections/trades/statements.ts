/**
 * The trades projector's SQL: per table one insert and one delete per batch, each taking all of
 * its rows at once (see ../columns.ts).
 */
import { ColumnSet } from '../columns.js';
import { qualified } from '../sql.js';
import type { LogKey, SettlementRow, TradeRow } from './batch.js';
import { SETTLEMENTS_TABLE, TRADES_TABLE } from './migrations.js';

export const tradeColumns = new ColumnSet<TradeRow>([
  ['network', 'text'],
  ['block_number', 'bigint'],
  ['log_index', 'integer'],
  ['block_hash', 'text'],
  ['tx_hash', 'text'],
  ['order_uid', 'text'],
  ['owner', 'text'],
  ['sell_token', 'text'],
  ['buy_token', 'text'],
  ['sell_amount', 'numeric'],
  ['buy_amount', 'numeric'],
  ['fee_amount', 'numeric'],
]);

export const settlementColumns = new ColumnSet<SettlementRow>([
  ['network', 'text'],
  ['tx_hash', 'text'],
  ['block_number', 'bigint'],
  ['log_index', 'integer'],
  ['block_hash', 'text'],
  ['solver', 'text'],
]);

export const logKeyColumns = new ColumnSet<LogKey>([
  ['network', 'text'],
  ['block_hash', 'text'],
  ['log_index', 'integer'],
]);

/** Inserts rows of `columns` into `table`; a log already there is the same log, kept. */
const insert = <Row>(table: string, columns: ColumnSet<Row>) =>
  `INSERT INTO ${table} (${columns.names})
    SELECT ${columns.names} FROM ${columns.unnest}
    ON CONFLICT (network, block_hash, log_index) DO NOTHING`;

const remove = (table: string) =>
  `DELETE FROM ${table} AS t USING ${logKeyColumns.unnest}
    WHERE t.network = x.network AND t.block_hash = x.block_hash AND t.log_index = x.log_index`;

export interface TradesStatements {
  insertTrades: string;
  deleteTrades: string;
  insertSettlements: string;
  deleteSettlements: string;
}

export function tradesStatements(schema: string): TradesStatements {
  const trades = qualified(schema, TRADES_TABLE);
  const settlements = qualified(schema, SETTLEMENTS_TABLE);
  return {
    insertTrades: insert(trades, tradeColumns),
    deleteTrades: remove(trades),
    insertSettlements: insert(settlements, settlementColumns),
    deleteSettlements: remove(settlements),
  };
}
