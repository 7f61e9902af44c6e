/** The orders projector: the `Order` read model behind GET /orders/{uid} and friends. */
import { eventsOfTypes } from '../events.js';
import type { Projector } from '../projector.js';
import { perSchema } from '../sql.js';
import { ORDER_EVENT_TYPES, reduceOrderEvents, type OrderEvent } from './batch.js';
import {
  migrateOrders,
  ORDER_CHAIN_STATE_TABLE,
  ORDERS_BY_OWNER_INDEX,
  ORDERS_BY_SENDER_INDEX,
  LIVE_LIMIT_ORDERS_INDEX,
  ORDERS_TABLE,
  PRESIGNATURE_EVENTS_TABLE,
} from './migrations.js';
import {
  cancellationColumns,
  chainEffectsColumns,
  ordersStatements,
  placedColumns,
  presignatureColumns,
  removedPlacementColumns,
} from './statements.js';

export function ordersProjector(): Projector {
  const sqlFor = perSchema(ordersStatements);

  return {
    name: 'orders',
    // 3: chain facts (with reorg reverts) moved to their own tables (rebuilt on upgrade).
    // 4: eth-flow orders (placed, taken back, refunded).
    version: 4,
    tables: [ORDERS_TABLE, ORDER_CHAIN_STATE_TABLE, PRESIGNATURE_EVENTS_TABLE],
    readerIndexes: [ORDERS_BY_OWNER_INDEX, ORDERS_BY_SENDER_INDEX, LIVE_LIMIT_ORDERS_INDEX],
    eventTypes: ORDER_EVENT_TYPES,
    migrate: migrateOrders,
    async handle(trx, events, schema) {
      const batch = reduceOrderEvents(eventsOfTypes<OrderEvent['type']>(events, ORDER_EVENT_TYPES));
      const sql = sqlFor(schema);

      // Sent together, run in this order (one connection runs its statements as sent).
      await Promise.all([
        cancellationColumns.run(trx, sql.cancel, batch.cancellations),
        removedPlacementColumns.run(trx, sql.removePlacement, batch.removedPlacements),
        placedColumns.run(trx, sql.insertPlaced, batch.placed),
        chainEffectsColumns.run(trx, sql.addChainEffects, batch.chainEffects),
        // Reverts first: a log that comes back after its revert is present again.
        presignatureColumns.run(trx, sql.revertPresign, batch.revertedPresignatures),
        presignatureColumns.run(trx, sql.presign, batch.presignatures),
      ]);
    },
  };
}
