/**
 * The trades projector: the executions the chain settled (GET /trades, the orders of a
 * transaction) and the settlements they belong to (the solver competition's join).
 */
import { eventsOfTypes } from '../events.js';
import type { Projector } from '../projector.js';
import { perSchema } from '../sql.js';
import { reduceTradeEvents, TRADE_EVENT_TYPES, type TradeEvent } from './batch.js';
import {
  migrateTrades,
  SETTLEMENTS_TABLE,
  TRADES_READER_INDEXES,
  TRADES_TABLE,
} from './migrations.js';
import { logKeyColumns, settlementColumns, tradeColumns, tradesStatements } from './statements.js';

export function tradesProjector(): Projector {
  const sqlFor = perSchema(tradesStatements);

  return {
    name: 'trades',
    version: 1,
    tables: [TRADES_TABLE, SETTLEMENTS_TABLE],
    readerIndexes: TRADES_READER_INDEXES,
    eventTypes: TRADE_EVENT_TYPES,
    migrate: migrateTrades,
    async handle(trx, events, schema) {
      const batch = reduceTradeEvents(eventsOfTypes<TradeEvent['type']>(events, TRADE_EVENT_TYPES));
      const sql = sqlFor(schema);

      // A log's last word in the batch is either an insert or a delete, never both. Sent
      // together, run in this order (one connection runs its statements as sent).
      await Promise.all([
        logKeyColumns.run(trx, sql.deleteTrades, batch.revertedTrades),
        tradeColumns.run(trx, sql.insertTrades, batch.trades),
        logKeyColumns.run(trx, sql.deleteSettlements, batch.revertedSettlements),
        settlementColumns.run(trx, sql.insertSettlements, batch.settlements),
      ]);
    },
  };
}
