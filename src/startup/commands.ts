/**
 * The commands the HTTP layer calls, each given what it decides with: the ledger, the clock, the
 * rules of the configuration, the network's chain reads and prices, the quote store.
 */
import { createAppDataRegistry } from '../commands/app-data-registry.js';
import { cancelOrders } from '../commands/cancel-orders.js';
import { createQuote } from '../commands/create-quote.js';
import { verifyEmail } from '../commands/destination-verification.js';
import { nativePrice } from '../commands/native-price.js';
import { placeOrder } from '../commands/place-order.js';
import type { QuotePricingDeps } from '../commands/quote-pricing.js';
import { createQuoteStore } from '../commands/quote-store.js';
import { startQuoteSweeper } from '../commands/quote-sweeper.js';
import { registerAppData } from '../commands/register-app-data.js';
import { authoriseListing, subscribe, typedData, unsubscribe } from '../commands/subscriptions.js';
import { usdPrice } from '../commands/usd-price.js';
import type { Config } from '../config.js';
import type { Commands } from '../http/deps.js';
import type { QuoteStore } from '../commands/quote-store.js';
import type { Auctions } from './auctions.js';
import type { Chains } from './chains.js';
import type { Infrastructure } from './infrastructure.js';
import type { Lifetime } from './lifetime.js';
import type { Notifications } from './notifications.js';
import type { Queries } from './queries.js';
import type { TokenReads } from './token-reads.js';

/** The solver a quote the pools priced names: the service's own estimator, with no account. */
const BUILT_IN_QUOTER = '0x0000000000000000000000000000000000000000';

export interface CommandParts {
  config: Config;
  infra: Infrastructure;
  chains: Chains;
  queries: Queries;
  tokens: TokenReads;
  auctions: Auctions;
  notifications: Notifications;
  clock: () => Date;
  life: Lifetime;
}

export function createCommands(parts: CommandParts): {
  commands: Commands;
  quoteStore: QuoteStore;
} {
  const { config, infra, chains, queries, tokens, auctions, clock, life } = parts;
  const { ledger, logger } = infra;
  const registry = createAppDataRegistry(ledger);
  const writeDeps = { ledger, clock };
  const quoteStore = createQuoteStore(infra.db);
  const sweeper = startQuoteSweeper({
    store: quoteStore,
    clock,
    intervalMs: config.quoteSweepIntervalMs,
    logger,
  });
  life.onStop(() => sweeper.stop());
  const quotePricing = (network: string): QuotePricingDeps => ({
    prices: chains.live.prices(network)!,
    solverQuotes: auctions.solverQuotes.get(network) ?? null,
    solver: BUILT_IN_QUOTER,
  });
  const orderRules = {
    appData: registry,
    denyList: config.denyList,
    validity: config.validity,
    appDataSizeLimit: config.appDataSizeLimit,
  };
  const subscriptions = parts.notifications.subscriptions;
  const commands: Commands = {
    placeOrder: (network, body) =>
      placeOrder(
        {
          ...writeDeps,
          ...orderRules,
          chain: chains.live.checks(network.name),
          ...quotePricing(network.name),
          quotes: queries.quotes,
          store: quoteStore,
          orders: queries.orders,
          competitions: queries.competitions,
          maxLimitOrdersPerOwner: config.maxLimitOrdersPerOwner,
        },
        network,
        body,
      ),
    cancelOrders: (network, request) => cancelOrders(writeDeps, network, request),
    createQuote: (network, body) =>
      createQuote(
        { ...writeDeps, ...orderRules, ...quotePricing(network.name), store: quoteStore },
        network,
        body,
      ),
    nativePrice: (network, token) =>
      nativePrice(tokens.prices.get(network.name)?.prices ?? null, network, token),
    usdPrice: (network, token) =>
      usdPrice(tokens.prices.get(network.name) ?? { prices: null, decimals: null }, network, token),
    registerAppData: (network, document, hash) =>
      registerAppData(
        { registry, sizeLimit: config.appDataSizeLimit, clock },
        network.name,
        document,
        hash,
      ),
    subscribe: (account, request) => subscribe(subscriptions, account, request),
    unsubscribe: (account, request) => unsubscribe(subscriptions, account, request),
    authoriseSubscriptionsRead: (account, credentials) =>
      authoriseListing(subscriptions, account, credentials),
    subscriptionsTypedData: () => typedData(subscriptions),
    verifyEmail: (account, id, code) => verifyEmail(subscriptions, account, id, code),
  };
  return { commands, quoteStore };
}
