/**
 * The trades projector: the executions the chain settled (GET /trades, the orders of a
 * transaction) and the settlements they belong to (the solver competition's join).
 */
import { eventsOfTypes } from '../events.js';
import type { Projector } from '../projector.js';
import { reduceTradeEvents, TRADE_EVENT_TYPES, type TradeEvent } from './batch.js';
import { migrateTrades, SETTLEMENTS_TABLE, TRADES_TABLE } from './migrations.js';
import {
  logKeyColumns,
  settlementColumns,
  tradeColumns,
  tradesStatements,
  type TradesStatements,
} from './statements.js';

export function tradesProjector(): Projector {
  const statements = new Map<string, TradesStatements>();
  const sqlFor = (schema: string): TradesStatements => {
    let s = statements.get(schema);
    if (!s) statements.set(schema, (s = tradesStatements(schema)));
    return s;
  };
  return {
    name: 'trades',
    version: 1,
    tables: [TRADES_TABLE, SETTLEMENTS_TABLE],
    migrate: migrateTrades,
    async handle(trx, events, schema) {
      const batch = reduceTradeEvents(eventsOfTypes<TradeEvent['type']>(events, TRADE_EVENT_TYPES));
      const sql = sqlFor(schema);
      const run = async <Row>(
        statement: string,
        columns: { bindings(rows: Row[]): string[] },
        rows: Row[],
      ) => {
        if (rows.length) await trx.raw(statement, columns.bindings(rows));
      };
      // A log's last word in the batch is either an insert or a delete, never both.
      await run(sql.deleteTrades, logKeyColumns, batch.revertedTrades);
      await run(sql.insertTrades, tradeColumns, batch.trades);
      await run(sql.deleteSettlements, logKeyColumns, batch.revertedSettlements);
      await run(sql.insertSettlements, settlementColumns, batch.settlements);
    },
  };
}
