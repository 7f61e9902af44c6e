/** The read models' queries, over the service thread's connections; shared by every step. */
import type { Knex } from 'knex';
import { createAppDataQueries } from '../queries/app-data.js';
import { createAuctionQueries } from '../queries/auctions.js';
import { createCompetitionQueries } from '../queries/competitions.js';
import { createNoticeQueries } from '../queries/notices.js';
import { createOrderQueries } from '../queries/orders.js';
import { createQuoteQueries } from '../queries/quotes.js';
import { createSubscriptionQueries } from '../queries/subscriptions.js';
import { createTokenHolderQueries } from '../queries/token-holders.js';
import { createTradeQueries } from '../queries/trades.js';

export type Queries = ReturnType<typeof createQueries>;

export function createQueries(db: Knex) {
  const orders = createOrderQueries(db);
  return {
    orders,
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
