/**
 * The auctions projector: every closed auction (GET /api/v1/auction), its solver competition
 * and what became of its winners' settlements (GET /solver_competition/*, an order's
 * competition status, the orders in flight), the orders auctions have taken in, and the native
 * prices of the tokens they priced (GET /users/{address}/total_surplus).
 *
 * Version 2: the competition tables, the settlement attempts, and the auction row's deadline,
 * UID arrays and prices. Version 4: the auction row keeps its orders' UIDs and executed
 * amounts, not the event (`AuctionClosed` v3 names its orders instead of copying them), and a
 * solution's orders always have their tokens. Version 5: why each filtered order was left out,
 * so that an auction recording only its changes (v5) is read back whole from its base's row.
 */

/** An auction's stored cut (statements.ts, `selectCuts`). */
interface StoredCut {
  network: string;
  id: string;
  order_uids: OrderUid[];
  order_executed: string[];
  filtered_uids: OrderUid[];
  filtered_reasons: FilterReason[];
  prices: Record<Address, string>;
}

function cutOf(row: StoredCut): CutRecord {
  return {
    orders: row.order_uids.map((uid, i) => ({ uid, executed: row.order_executed[i]! })),
    prices: row.prices,
    filtered: row.filtered_uids.map((uid, i) => ({ uid, reason: row.filtered_reasons[i]! })),
  };
}
import { eventsOfTypes } from '../events.js';
import type { Projector } from '../projector.js';
import { perSchema } from '../sql.js';
import type { CutRecord } from '../../src/domain/auction-record.js';
import type { Address, FilterReason, OrderUid } from '../../src/domain/events.js';
import {
  AUCTION_EVENT_TYPES,
  auctionKey,
  basesNeeded,
  reduceAuctionEvents,
  type AuctionEvent,
} from './batch.js';
import { AUCTION_TABLES, migrateAuctions } from './migrations.js';
import {
  attemptColumns,
  auctionColumns,
  auctionKeyColumns,
  auctionsStatements,
  solutionColumns,
  solutionOrderColumns,
  tokenPriceColumns,
} from './statements.js';

export function auctionsProjector(): Projector {
  const sqlFor = perSchema(auctionsStatements);

  return {
    name: 'auctions',
    version: 5,
    tables: AUCTION_TABLES,
    eventTypes: AUCTION_EVENT_TYPES,
    migrate: migrateAuctions,
    async handle(trx, events, schema) {
      const sql = sqlFor(schema);
      const auctionEvents = eventsOfTypes<AuctionEvent['type']>(events, AUCTION_EVENT_TYPES);
      const needed = basesNeeded(auctionEvents);
      const bases = new Map<string, CutRecord>();
      if (needed.length > 0) {
        const { rows } = (await trx.raw(sql.selectCuts, auctionKeyColumns.bindings(needed))) as {
          rows: StoredCut[];
        };
        for (const row of rows) bases.set(auctionKey(row.network, Number(row.id)), cutOf(row));
      }
      const batch = reduceAuctionEvents(auctionEvents, bases);

      // Sent together, run in this order (one connection runs its statements as sent).
      await Promise.all([
        auctionColumns.run(trx, sql.insertAuctions, batch.auctions),
        auctionKeyColumns.run(trx, sql.recordAuctionedOrders, batch.auctions),
        solutionColumns.run(trx, sql.insertSolutions, batch.solutions),
        solutionOrderColumns.run(trx, sql.insertSolutionOrders, batch.solutionOrders),
        tokenPriceColumns.run(trx, sql.upsertTokenPrices, batch.tokenPrices),
        attemptColumns.run(trx, sql.replaceAttempts, batch.replaceAttempts),
        attemptColumns.run(trx, sql.failAttempts, batch.failAttempts),
      ]);
    },
  };
}
