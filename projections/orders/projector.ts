/** The orders projector: the `Order` read model behind GET /orders/{uid} and friends. */
import { eventsOfTypes } from '../events.js';
import type { Projector } from '../projector.js';
import { ORDER_EVENT_TYPES, reduceOrderEvents, type OrderEvent } from './batch.js';
import { migrateOrders, ORDERS_TABLE, PRESIGNATURES_TABLE } from './migrations.js';
import {
  effectsColumns,
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
    // 2: the owner index lost its uid column (rebuilt on upgrade).
    version: 2,
    tables: [ORDERS_TABLE, PRESIGNATURES_TABLE],
    migrate: migrateOrders,
    async handle(trx, events, schema) {
      const batch = reduceOrderEvents(eventsOfTypes<OrderEvent['type']>(events, ORDER_EVENT_TYPES));
      const sql = sqlFor(schema);
      // Effects on earlier orders first: some may precede a placement in this same batch.
      if (batch.effects.length) {
        await trx.raw(sql.addEffects, effectsColumns.bindings(batch.effects));
      }
      if (batch.placed.length)
        await trx.raw(sql.insertPlaced, placedColumns.bindings(batch.placed));
      if (batch.presignatures.length) {
        await trx.raw(sql.presign, presignatureColumns.bindings(batch.presignatures));
      }
    },
  };
}
