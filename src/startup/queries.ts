/**
 * The read models' queries (and an order's history, read from the ledger too), over the service
 * thread's connections; shared by every step.
 */
import type { Knex } from 'knex';
import type { Ledger } from '../ledger/port.js';
import { createAppDataQueries } from '../queries/app-data.js';
import { createAuctionQueries } from '../queries/auctions.js';
import { createCompetitionQueries } from '../queries/competitions.js';
import { createNoticeQueries } from '../queries/notices.js';
import { createOrderHistoryQueries } from '../queries/order-history.js';
import { createOrderQueries } from '../queries/orders.js';
import { createQuoteQueries } from '../queries/quotes.js';
import { createSubscriptionQueries } from '../queries/subscriptions.js';
import { createTokenHolderQueries } from '../queries/token-holders.js';
import { createTradeQueries } from '../queries/trades.js';

export type Queries = ReturnType<typeof createQueries>;

export function createQueries(db: Knex, ledger: Ledger) {
  const orders = createOrderQueries(db);
  return {
    orders,
    orderHistory: createOrderHistoryQueries(db, ledger),
    appData: createAppDataQueries(db),
    tokenHolders: createTokenHolderQueries(db),
    trades: createTradeQueries(db, orders),
    auctions: createAuctionQueries(db),
    competitions: createCompetitionQueries(db),
    subscriptions: createSubscriptionQueries(db),
    notices: createNoticeQueries(db),
    quotes: createQuoteQueries(db),
  };
}
