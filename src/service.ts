/**
 * Wires the whole service from a Config: database, ledger, projections, commands, queries and
 * the HTTP server. `src/main.ts` runs it for `npm start`; tests start it in-process on port 0.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import knex from 'knex';
import type { Logger } from 'pino';
import { dedicatedConnectionConfig } from '../projections/connection.js';
import { allProjectors } from '../projections/index.js';
import { AnvilPortInUse } from './chain/devnet/anvil.js';
import { devnetFiles, startDevnet, type Devnet } from './chain/devnet/devnet.js';
import { ForkUnavailable, startFork, type Fork } from './chain/devnet/fork.js';
import { startLiveNetworks } from './chain/live-networks.js';
import { rememberMisses } from './chain/remembered-misses.js';
import { createTokenDecimals } from './chain/token-decimals.js';
import { createTokenFacts } from './chain/token-facts.js';
import { startTokenHolderIndexers } from './chain/token-holders.js';
import { createAppDataRegistry } from './commands/app-data-registry.js';
import { cancelOrders } from './commands/cancel-orders.js';
import { createQuote } from './commands/create-quote.js';
import { nativePrice } from './commands/native-price.js';
import { placeOrder } from './commands/place-order.js';
import type { QuotePricingDeps } from './commands/quote-pricing.js';
import { createQuoteStore } from './commands/quote-store.js';
import { startQuoteSweeper } from './commands/quote-sweeper.js';
import { registerAppData } from './commands/register-app-data.js';
import { deploymentId } from './commands/deployment.js';
import {
  verifyDestination,
  verifyEmail,
  verifyTelegramChat,
} from './commands/destination-verification.js';
import { Rejection } from './commands/rejection.js';
import {
  authoriseListing,
  subscribe,
  typedData,
  unsubscribe,
  type SubscriptionsDeps,
} from './commands/subscriptions.js';
import { usdPrice, type UsdPriceDeps } from './commands/usd-price.js';
import type { Config } from './config.js';
import { claimDataDir, type DataDirClaim } from './data-dir-claim.js';
import { createHttpApp } from './http/app.js';
import { createHttpServer } from './http/server.js';
import type { HttpDeps } from './http/deps.js';
import { createRedisRateLimitStore } from './http/rate-limit-redis.js';
import { createMemoryRateLimitStore, type RateLimitStore } from './http/rate-limit-store.js';
import { withPayloadChecks } from './ledger/checked-payloads.js';
import { createEventStoreLedger } from './ledger/eventstoredb.js';
import type { Ledger } from './ledger/port.js';
import { createPostgresLedger } from './ledger/postgres.js';
import { createLedgerUsage } from './ledger/postgres-usage.js';
import {
  createPool,
  DEFAULT_POSTGRES_DEADLINES,
  knexOptions,
  type PostgresDeadlines,
} from './postgres/connection-options.js';
import { openDatabase } from './postgres/database.js';
import { leadershipOn } from './postgres/leadership.js';
import { createSequence } from './postgres/sequence.js';
import { inTransaction } from './postgres/transaction.js';
import { startProjectionThread } from './projection-thread.js';
import { createAuctionQueries } from './queries/auctions.js';
import { createCompetitionQueries } from './queries/competitions.js';
import { createLedgerFeed } from './queries/ledger-feed.js';
import { createNoticeQueries } from './queries/notices.js';
import type { Address } from './domain/events.js';
import { networkByName } from './domain/networks.js';
import { startAutopilot } from './auction/autopilot.js';
import { DeliveryError } from './delivery/channel.js';
import { telegramUpdatesStep } from './delivery/channels/telegram-updates.js';
import { createHttpClient } from './delivery/http.js';
import { countPending } from './delivery/outbox.js';
import { startDeliveryWorker } from './delivery/worker.js';
import { startLeaderLoop } from './chain/leader-loop.js';
import { subscriptionsDomainSeparator } from './domain/subscription-auth.js';
import { createBuiltinSolver } from './auction/builtin-solver.js';
import { createSettlementDriver } from './auction/driver.js';
import { createExternalSolver } from './auction/external-solver.js';
import { settlementFeedback } from './auction/settlement-feedback.js';
import type { Solver } from './auction/solver.js';
import { createSolverQuotes, type SolverQuotes } from './auction/solver-quotes.js';
import type { MarketSources } from './auction/round.js';
import { devnetSolver } from './chain/devnet/deploy.js';
import { createAppDataQueries } from './queries/app-data.js';
import { createOrderHistoryQueries } from './queries/order-history.js';
import { createOrderQueries } from './queries/orders.js';
import { createQuoteQueries } from './queries/quotes.js';
import { createSubscriptionQueries } from './queries/subscriptions.js';
import { createTokenHolderQueries } from './queries/token-holders.js';
import { createTradedTokensQuery } from './queries/traded-tokens.js';
import { createTradeQueries } from './queries/trades.js';
import { stopLeftoverServers } from './leftover-servers.js';
import { createReadiness } from './readiness.js';
import { StartupError } from './startup-error.js';
import { startMetricsServer } from './metrics/metrics-server.js';
import { registerScrapedGauges } from './metrics/scraped-gauges.js';
import { createServiceMetrics } from './metrics/service-metrics.js';
import { registerStorageMetrics } from './metrics/storage.js';
import { BACKLOG_CAP, projectorBacklogs } from './projector-backlogs.js';
import { runStartupMigrations } from './startup-migrations.js';
import { eventPayloadProblem } from '../schemas/event-payloads.js';

export interface RunningService {
  /** Base URL of the HTTP API, e.g. http://127.0.0.1:8080 */
  url: string;
  ledger: Ledger;
  /** The embedded devnet, when this service launched one. */
  devnet: Devnet | null;
  /** Networks with a chain connection: they accept writes and are indexed. */
  liveNetworks: ReadonlySet<string>;
  /** Base URL of the `METRICS_PORT` listener; null without one. */
  metricsUrl: string | null;
  stop(): Promise<void>;
}

/** The solver a quote the pools priced names: the service's own estimator, with no account. */
const BUILT_IN_QUOTER = '0x0000000000000000000000000000000000000000';

export interface ServiceOptions {
  logger: Logger;
  /** The service's clock; tests pass a controllable one. */
  clock?: () => Date;
  /** Deadlines of its PostgreSQL connections; default DEFAULT_POSTGRES_DEADLINES. */
  postgresDeadlines?: Partial<PostgresDeadlines>;
}

export async function startService(
  config: Config,
  options: ServiceOptions,
): Promise<RunningService> {
  const { logger } = options;
  const clock = options.clock ?? (() => new Date());
  const stack: (() => Promise<void>)[] = [];
  let stopping = false;
  let claim: DataDirClaim | null = null;
  const stop = async () => {
    stopping = true;
    await claim?.markStopping();
    for (const close of stack.reverse()) await close();
  };
  // Connections cut while stopping (e.g. PostgreSQL shutting down on the same Ctrl-C) are expected.
  const report = (message: string, err: unknown, fields: Record<string, unknown> = {}) => {
    if (stopping) logger.debug({ err, ...fields }, message);
    else logger.warn({ err, ...fields }, message);
  };
  const warn = (message: string) => (err: unknown) => report(message, err);
  try {
    // The embedded servers live in the data directory: one service at a time there, and what a
    // crashed one left running is stopped before they start again.
    if (config.databaseUrl === null || config.devnet.enabled || config.fork !== null) {
      const held = await claimDataDir(config.dataDir);
      claim = held;
      stack.push(() => held.release());
      await stopLeftoverServers(config.dataDir, logger);
    }
    const database = await openDatabase(config);
    stack.push(() => database.stop());

    const deadlines = { ...DEFAULT_POSTGRES_DEADLINES, ...options.postgresDeadlines };
    await runStartupMigrations(database.url, deadlines, config.ledger);
    const pool = createPool(database.url, deadlines, 24);
    pool.on('error', warn('idle PostgreSQL connection failed'));
    stack.push(() => pool.end());
    const ledger = withPayloadChecks(
      config.ledger.kind === 'postgres'
        ? // Migrated by the start-up pass above, free of the statement deadline this pool keeps.
          await createPostgresLedger({
            pool,
            migrated: true,
            onError: warn('ledger connection failed; retrying'),
          })
        : createEventStoreLedger({
            connectionString: config.ledger.url,
            onError: warn('ledger subscription failed; retrying'),
          }),
      eventPayloadProblem,
    );
    stack.push(() => ledger.close());

    const db = knex({
      client: 'pg',
      ...knexOptions(database.url, deadlines, { min: 0, max: 16 }),
      // knex prints to stdout, between the JSON lines. What it warns of (a connection that
      // failed or dropped) also fails the query, which its caller reports: debug is enough.
      log: {
        warn: (message: unknown) => logger.debug({ knex: message }, 'knex warning'),
        error: (message: unknown) => logger.warn({ knex: message }, 'knex error'),
      },
    });
    stack.push(() => db.destroy());
    // Each leader role on this thread (indexers, token holders, autopilots) locks on a session of
    // its own; the projection thread opens its own.
    const requestLeadership = leadershipOn(dedicatedConnectionConfig(db));

    // The devnet's chain and the ledger start fresh together: an empty ledger forgets the chain.
    const devnet = config.devnet.enabled
      ? await startDevnet({
          dataDir: config.dataDir,
          port: config.devnet.port,
          fresh: (await ledger.readAll(null, 1)).length === 0,
        }).catch(explainAnvilStart)
      : null;
    if (devnet) stack.push(() => devnet.stop());
    const fork = config.fork ? await startForkOrExplain(config.fork, config) : null;
    if (fork) stack.push(() => fork.stop());
    const rpcUrls = new Map(config.rpcUrls);
    if (devnet) rpcUrls.set('devnet', devnet.rpcUrl);
    if (fork) rpcUrls.set(fork.network.name, fork.rpcUrl);
    // Networks on a local anvil: blocks come only with transactions and never reorg.
    const local = (name: string) => name === 'devnet' || name === fork?.network.name;
    const metrics = createServiceMetrics();
    const chains = await startLiveNetworks({
      rpcUrls,
      rpc: config.rpc,
      indexer: fork
        ? {
            ...config.indexer,
            confirmations: new Map([...config.indexer.confirmations, [fork.network.name, 0]]),
          }
        : config.indexer,
      ledger,
      pool,
      inTransaction,
      requestLeadership,
      logger,
      rpcObserver: metrics.rpc,
    });
    stack.push(() => chains.stop());
    // The projectors run on a thread of their own, with their own connections and ledger.
    const projections = await startProjectionThread({
      databaseUrl: database.url,
      deadlines,
      ledger: config.ledger,
      comparePositions: (a, b) => ledger.comparePositions(a, b),
      onError: (err, projector) => report('projection batch failed; retrying', err, { projector }),
      heapLimitMb: config.projectionThreadHeapMb,
    });
    stack.push(() => projections.stop());

    // Subscription requests are signed for this deployment: its identity is in the ledger
    // (recorded once, after the devnet's check of an empty ledger above).
    const deployment = await deploymentId(ledger, clock);
    const subscriptionQueries = createSubscriptionQueries(db);
    const subscriptionDeps: SubscriptionsDeps = {
      ledger,
      clock,
      enabled: config.notifications.enabled,
      apiKey: config.notifications.apiKey,
      deploymentId: deployment,
      domainSeparator: subscriptionsDomainSeparator(deployment),
      channels: {
        email: config.notifications.email !== null,
        webpush: config.notifications.webPush !== null,
        telegram: config.notifications.telegram !== null,
      },
      allowPrivateAddresses: config.notifications.delivery.allowPrivateAddresses,
    };

    // Delivers the outbox the notices projector fills (its migration, run by startProjections,
    // created the table). Every instance may run one: rows are claimed with leases.
    if (config.notifications.enabled) {
      const delivery = startDeliveryWorker({
        db,
        config: config.notifications,
        logger,
        observer: metrics.deliveries,
        verified: async (request) => {
          try {
            await verifyDestination(subscriptionDeps, request.account, request.subscriptionId, {
              method: 'webhookChallenge',
              challenge: request.challenge,
            });
          } catch (error) {
            // Removed meanwhile, or a challenge of no subscription: no retry changes that.
            if (!(error instanceof Rejection)) throw error;
            throw new DeliveryError(error.description, { permanent: true });
          }
        },
      });
      stack.push(() => delivery.stop());
    }
    // The codes chats send the bot verify Telegram subscriptions; one instance reads them.
    const { telegram } = config.notifications;
    if (config.notifications.enabled && telegram) {
      const client = createHttpClient();
      const updates = startLeaderLoop({
        requestLeadership,
        key: ['batchbook.delivery.telegram-updates', 'bot'],
        pollIntervalMs: config.notifications.delivery.pollIntervalMs,
        logger,
        step: telegramUpdatesStep({
          ...telegram,
          client,
          timeoutMs: config.notifications.delivery.webhookTimeoutMs,
          logger,
          verify: (code, chat) =>
            verifyTelegramChat(
              { ...subscriptionDeps, findTelegramCode: subscriptionQueries.pendingTelegram },
              code,
              chat,
            ),
        }),
      });
      stack.push(async () => {
        await updates.stop();
        client.close();
      });
    }

    // The token endpoints' chain reads (holders from Transfer logs, token decimals). Started
    // after the projections, whose orders table names the traded tokens.
    const tokenRpcs = new Map([...chains.names].map((name) => [name, chains.rpc(name)!]));
    const tokenHolders = await startTokenHolderIndexers(
      {
        rpcs: tokenRpcs,
        pool,
        inTransaction,
        requestLeadership,
        logger,
        tradedTokens: createTradedTokensQuery(db),
      },
      config.indexer,
    );
    stack.push(() => tokenHolders.stop());
    // The price endpoints' chain reads. Any caller may name any address: tokens found without a
    // price or decimals are remembered for a while, so naming them again asks the chain nothing.
    const misses = { clock, ttlMs: config.unknownTokenCacheSeconds * 1000 };
    const tokenDecimals = new Map(
      [...tokenRpcs].map(([name, rpc]) => [name, createTokenDecimals(rpc)]),
    );
    const priceReads = new Map(
      [...tokenRpcs].map(([name]): [string, UsdPriceDeps] => {
        const prices = chains.prices(name)!;
        const decimals = tokenDecimals.get(name)!;
        return [
          name,
          {
            prices: { nativePrice: rememberMisses((t: Address) => prices.nativePrice(t), misses) },
            decimals: { of: rememberMisses((t: Address) => decimals.of(t), misses) },
          },
        ];
      }),
    );

    const orderQueries = createOrderQueries(db);
    const noticeQueries = createNoticeQueries(db);
    const competitions = createCompetitionQueries(db);
    // One autopilot per live network, after the projections whose orders it cuts auctions of.
    const solverQuotes = new Map<string, SolverQuotes>();
    const nextAuctionId = await createSequence(pool, 'batchbook_auction_ids');
    for (const name of chains.names) {
      const network = networkByName(name)!;
      const rpc = chains.rpc(name)!;
      const prices = chains.prices(name)!;
      const driverKey =
        config.auction.driverKeys.get(name) ?? (local(name) ? devnetSolver().privateKey : null);
      // The driver tells each winner's solver what became of it.
      const solversByName = new Map<string, Solver>();
      const driver = driverKey
        ? createSettlementDriver({
            network,
            rpc,
            privateKey: driverKey,
            ledger,
            clock,
            logger,
            receiptPollIntervalMs: config.indexer.pollIntervalMs,
            observer: metrics.auctions,
            onOutcome: (auctionId, solution, outcome) =>
              solversByName
                .get(solution.solver)
                ?.notify(settlementFeedback(auctionId, solution, outcome)),
          })
        : null;
      if (driver) stack.push(() => driver.stop());
      const wrappedNative = network.wrappedNativeToken.toLowerCase() as Address;
      const solvers: Solver[] = [
        ...(config.auction.builtinSolver && driver
          ? [
              createBuiltinSolver(driver.address, wrappedNative, {
                slippageBps: BigInt(config.auction.builtinSolverSlippageBps),
              }),
            ]
          : []),
        ...config.auction.externalSolvers
          .filter((solver) => solver.networks?.includes(name) ?? true)
          .map((solver) => createExternalSolver(solver, { logger })),
      ];
      for (const solver of solvers) solversByName.set(solver.name, solver);
      const market: MarketSources = {
        pools: (tokens) => prices.pools(tokens),
        tokenFacts: createTokenFacts(rpc, tokenDecimals.get(name)!),
        gasPrice: () => prices.gasPrice(),
      };
      solverQuotes.set(
        name,
        createSolverQuotes({
          network,
          solvers: solvers.filter((solver) => solver.quotes),
          market,
          timeoutMs: config.auction.quoteSolveTimeoutMs,
          clock,
          logger,
        }),
      );
      const autopilot = startAutopilot({
        network,
        cut: {
          solvable: (now, validAfter) => orderQueries.solvable(name, now, validAfter),
          inFlight: (now) => competitions.inFlight(name, now),
          prices,
          chain: chains.checks(name),
          blockNumber: () => rpc.request('block number', (p) => p.getBlockNumber()),
          validityMargin: config.auction.validityMarginSeconds,
          interactionTargets: network,
        },
        orderChecks: chains.checks(name),
        expiryDue: (now) => noticeQueries.expiryDue(name, now),
        market,
        trusted: config.auction.trustedTokens.get(name)!,
        solvers,
        driver,
        ledger,
        nextAuctionId,
        projected: async (position) => {
          const caughtUp = await Promise.all(
            ['auctions', 'notices'].map((projector) =>
              projections.waitFor(projector, position, config.auction.solveTimeoutMs),
            ),
          );
          if (caughtUp.every(Boolean)) return true;
          metrics.countAutopilotReadModelTimeout(name);
          return false;
        },
        clock,
        requestLeadership,
        logger,
        intervalMs: local(name) ? config.auction.devnetIntervalMs : config.auction.intervalMs,
        solveTimeoutMs: config.auction.solveTimeoutMs,
        settlementDeadlineMs: config.auction.settlementDeadlineMs,
        observer: metrics.auctions,
      });
      stack.push(() => autopilot.stop());
    }

    // Several instances behind one address share their budgets through Redis.
    const rateLimitStore: RateLimitStore = config.redisUrl
      ? await createRedisRateLimitStore({
          url: config.redisUrl,
          onError: warn('rate-limit Redis connection failed; reconnecting'),
        })
      : createMemoryRateLimitStore({ clock });
    stack.push(() => rateLimitStore.close());

    const registry = createAppDataRegistry(ledger);
    const writeDeps = { ledger, clock };
    const quotes = createQuoteQueries(db);
    const quoteStore = createQuoteStore(db);
    const sweeper = startQuoteSweeper({
      store: quoteStore,
      clock,
      intervalMs: config.quoteSweepIntervalMs,
      logger,
    });
    stack.push(() => sweeper.stop());
    const quotePricing = (network: string): QuotePricingDeps => ({
      prices: chains.prices(network)!,
      solverQuotes: solverQuotes.get(network) ?? null,
      solver: BUILT_IN_QUOTER,
    });
    const orderRules = {
      appData: registry,
      denyList: config.denyList,
      validity: config.validity,
      appDataSizeLimit: config.appDataSizeLimit,
    };
    registerStorageMetrics(metrics.registry, {
      pool,
      ledger: config.ledger.kind === 'postgres' ? createLedgerUsage(pool) : null,
      quotes: quoteStore,
    });
    const projectors = allProjectors().map((projector) => projector.name);
    registerScrapedGauges(metrics.registry, {
      projectorBacklogs: () => projectorBacklogs(ledger, projections, projectors),
      backlogCap: BACKLOG_CAP,
      indexerLags: () =>
        Promise.all(
          [...chains.names].map(async (name): Promise<[string, number | null]> => {
            // A network whose node or cursor does not answer has no figure this time.
            const behind = chains
              .rpc(name)!
              .provider.getBlockNumber()
              .then((head) => chains.indexer(name)!.behind(head));
            return [name, await behind.catch(() => null)];
          }),
        ),
      outboxPending: config.notifications.enabled ? () => countPending(db) : null,
      projectionThreadHeap: () => projections.heapUsed(),
    });
    const readiness = createReadiness({
      pool,
      ledger,
      projections,
      projectors,
      chains,
      limits: config.readiness,
      logger,
    });
    // The live streams' one ledger subscription; it tells of an event once these show it.
    const ledgerFeed = createLedgerFeed({
      subscribe: (after, options) => ledger.subscribe(after, options),
      readModelsPosition: () => projections.checkpoint('auctions'),
      projected: async (position) =>
        (
          await Promise.all(
            ['orders', 'auctions', 'trades'].map((projector) =>
              projections.waitFor(projector, position, config.readYourWritesTimeoutMs),
            ),
          )
        ).every(Boolean),
      onError: warn('ledger feed failed'),
    });
    const deps: HttpDeps = {
      commands: {
        placeOrder: (network, body) =>
          placeOrder(
            {
              ...writeDeps,
              ...orderRules,
              chain: chains.checks(network.name),
              ...quotePricing(network.name),
              quotes,
              store: quoteStore,
              orders: orderQueries,
              competitions,
              maxLimitOrdersPerOwner: config.maxLimitOrdersPerOwner,
            },
            network,
            body,
          ),
        cancelOrders: (network, request) => cancelOrders(writeDeps, network, request),
        createQuote: (network, body) =>
          createQuote(
            {
              ...writeDeps,
              ...orderRules,
              ...quotePricing(network.name),
              store: quoteStore,
            },
            network,
            body,
          ),
        nativePrice: (network, token) =>
          nativePrice(priceReads.get(network.name)?.prices ?? null, network, token),
        usdPrice: (network, token) =>
          usdPrice(
            priceReads.get(network.name) ?? { prices: null, decimals: null },
            network,
            token,
          ),
        registerAppData: (network, document, hash) =>
          registerAppData(
            { registry, sizeLimit: config.appDataSizeLimit, clock },
            network.name,
            document,
            hash,
          ),
        subscribe: (account, request) => subscribe(subscriptionDeps, account, request),
        unsubscribe: (account, request) => unsubscribe(subscriptionDeps, account, request),
        authoriseSubscriptionsRead: (account, credentials) =>
          authoriseListing(subscriptionDeps, account, credentials),
        subscriptionsTypedData: () => typedData(subscriptionDeps),
        verifyEmail: (account, id, code) => verifyEmail(subscriptionDeps, account, id, code),
      },
      queries: {
        orders: orderQueries,
        orderHistory: createOrderHistoryQueries(db, ledger),
        appData: createAppDataQueries(db),
        tokenHolders: createTokenHolderQueries(db),
        trades: createTradeQueries(db, orderQueries),
        auctions: createAuctionQueries(db),
        competitions,
        subscriptions: subscriptionQueries,
        notices: noticeQueries,
      },
      ledgerFeed,
      readYourWrites: async (projector, position) => {
        const began = performance.now();
        const caughtUp = await projections.waitFor(
          projector,
          position,
          config.readYourWritesTimeoutMs,
        );
        metrics.observeReadYourWrites(projector, (performance.now() - began) / 1000, caughtUp);
        if (!caughtUp) logger.warn({ projector, position }, 'read-your-writes wait timed out');
      },
      clock,
      version: config.version,
      logger,
      accessLog: config.accessLog,
      appDataSizeLimit: config.appDataSizeLimit,
      liveNetworks: chains.names,
      rateLimits: { store: rateLimitStore, ...config.rateLimits },
      trustedProxies: config.trustedProxies,
      notificationsApi: {
        enabled: config.notifications.enabled,
        apiKeyConfigured: config.notifications.apiKey !== null,
      },
      readiness: (network) => readiness.check(network),
      requestMetrics: metrics.http,
      admin: { apiKey: config.adminApiKey, registry: metrics.registry },
    };

    const server: Server = createHttpServer(createHttpApp(deps), {
      ...config.http,
      trustedProxies: config.trustedProxies,
    }).listen(config.port, config.host);
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRINUSE'
            ? new StartupError(
                `PORT ${config.port} on ${config.host} is in use by another program: stop it, or set PORT to a free port`,
              )
            : error,
        ),
      );
    });
    stack.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        }),
    );
    // First of all: its streams never end by themselves, and the server's close waits for them.
    stack.push(() => ledgerFeed.stop());
    const { port } = server.address() as AddressInfo;
    const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
    const metricsServer =
      config.metricsPort === null
        ? null
        : await startMetricsServer(metrics.registry, {
            host: config.host,
            port: config.metricsPort,
          }).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'EADDRINUSE') throw error;
            throw new StartupError(
              `METRICS_PORT ${config.metricsPort} on ${config.host} is in use by another program: stop it, or set METRICS_PORT to a free port`,
            );
          });
    if (metricsServer) stack.push(() => metricsServer.close());
    return {
      url: `http://${host}:${port}`,
      ledger,
      devnet,
      liveNetworks: chains.names,
      metricsUrl: metricsServer?.url ?? null,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The embedded anvil as a fork; a start that cannot go on says why in one line. */
async function startForkOrExplain(
  fork: NonNullable<Config['fork']>,
  config: Config,
): Promise<Fork> {
  return startFork({
    ...fork,
    port: config.devnet.port,
    pidFile: devnetFiles(config.dataDir).pidFile,
  }).catch((error: unknown) => {
    if (error instanceof ForkUnavailable)
      throw new StartupError(`FORK_URL ${fork.url} ${error.message}`, { cause: error });
    return explainAnvilStart(error);
  });
}

/** An embedded anvil that could not start on its port says which variable to change. */
function explainAnvilStart(error: unknown): never {
  if (!(error instanceof AnvilPortInUse)) throw error;
  throw new StartupError(
    `DEVNET_PORT ${error.port} is in use by another program: stop it, or set DEVNET_PORT to a free port (0 picks one)`,
  );
}
