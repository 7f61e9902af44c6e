/** The orders projector: the `Order` read model behind GET /orders/{uid} and friends. */
import { eventsOfTypes } from '../events.js';
import type { Projector } from '../projector.js';
import { ORDER_EVENT_TYPES, reduceOrderEvents, type OrderEvent } from './batch.js';
import {
  migrateOrders,
  ORDER_CHAIN_STATE_TABLE,
  ORDERS_TABLE,
  PRESIGNATURE_EVENTS_TABLE,
} from './migrations.js';
import {
  cancellationColumns,
  chainEffectsColumns,
  ordersStatements,
  placedColumns,
  presignatureColumns,
  type OrdersStatements,
} from './statements.js';

export function ordersProjector(): Projector {
  const statements = new Map<string, OrdersStatements>();
  const sqlFor = (schema: string): OrdersStatements => {
    let s = statements.get(schema);
    if (!s) statements.set(schema, (s = ordersStatements(schema)));
    return s;
  };
  return {
    name: 'orders',
    // 3: chain facts (with reorg reverts) moved to their own tables (rebuilt on upgrade).
    version: 3,
    tables: [ORDERS_TABLE, ORDER_CHAIN_STATE_TABLE, PRESIGNATURE_EVENTS_TABLE],
    migrate: migrateOrders,
    async handle(trx, events, schema) {
      const batch = reduceOrderEvents(eventsOfTypes<OrderEvent['type']>(events, ORDER_EVENT_TYPES));
      const sql = sqlFor(schema);
      const run = async <Row>(
        statement: string,
        columns: { bindings(rows: Row[]): string[] },
        rows: Row[],
      ) => {
        if (rows.length) await trx.raw(statement, columns.bindings(rows));
      };
      await run(sql.cancel, cancellationColumns, batch.cancellations);
      await run(sql.insertPlaced, placedColumns, batch.placed);
      await run(sql.addChainEffects, chainEffectsColumns, batch.chainEffects);
      // Reverts first: a log that comes back after its revert is present again.
      await run(sql.revertPresign, presignatureColumns, batch.revertedPresignatures);
      await run(sql.presign, presignatureColumns, batch.presignatures);
    },
  };
}
