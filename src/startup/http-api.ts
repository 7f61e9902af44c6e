/**
 * The last step: the HTTP API, listening, and the optional metrics listener. Everything it serves
 * is started by now.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Config } from '../config.js';
import { createHttpApp } from '../http/app.js';
import type { Commands, HttpDeps } from '../http/deps.js';
import { createRedisRateLimitStore } from '../http/rate-limit-redis.js';
import { createMemoryRateLimitStore, type RateLimitStore } from '../http/rate-limit-store.js';
import { createHttpServer } from '../http/server.js';
import { startMetricsServer } from '../metrics/metrics-server.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { translateDatabaseErrors } from '../postgres/database-unavailable.js';
import { createLedgerFeed, type LedgerFeed } from '../queries/ledger-feed.js';
import type { ProjectionThreadEngine } from '../projection-thread/thread.js';
import type { Readiness } from '../readiness.js';
import { StartupError } from '../startup-error.js';
import type { Chains } from './chains.js';
import type { Infrastructure } from './infrastructure.js';
import type { Lifetime } from './lifetime.js';
import type { Queries } from './queries.js';

export interface HttpParts {
  config: Config;
  infra: Infrastructure;
  chains: Chains;
  projections: ProjectionThreadEngine;
  queries: Queries;
  commands: Commands;
  readiness: Readiness;
  metrics: ServiceMetrics;
  clock: () => Date;
  life: Lifetime;
}

export interface ServingApi {
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  /** The `METRICS_PORT` listener's; null without one. */
  metricsUrl: string | null;
}

export async function serveHttpApi(parts: HttpParts): Promise<ServingApi> {
  const { config, life, metrics } = parts;
  // Several instances behind one address share their budgets through Redis.
  const rateLimitStore: RateLimitStore = config.redisUrl
    ? await createRedisRateLimitStore({
        url: config.redisUrl,
        onError: life.warn('rate-limit Redis connection failed; reconnecting'),
      })
    : createMemoryRateLimitStore({ clock: parts.clock });
  life.onStop(() => rateLimitStore.close());

  const ledgerFeed = startLedgerFeed(parts);
  const server = createHttpServer(createHttpApp(httpDeps(parts, rateLimitStore, ledgerFeed)), {
    ...config.http,
    trustedProxies: config.trustedProxies,
  });
  await listen(server, config.port, config.host, 'PORT');
  life.onStop(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  );
  // Before the server: its streams never end by themselves, and the server's close waits for them.
  life.onStop(() => ledgerFeed.stop());
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
          throw portInUse('METRICS_PORT', config.metricsPort!, config.host);
        });
  if (metricsServer) life.onStop(() => metricsServer.close());
  return { url: `http://${host}:${port}`, metricsUrl: metricsServer?.url ?? null };
}

/** The live streams' one ledger subscription; it tells of an event once the read models show it. */
function startLedgerFeed({ config, infra, projections, life }: HttpParts): LedgerFeed {
  return createLedgerFeed({
    subscribe: (after, options) => infra.ledger.subscribe(after, options),
    readModelsPosition: () => projections.checkpoint('auctions'),
    projected: async (position) =>
      (
        await Promise.all(
          (['orders', 'auctions', 'trades'] as const).map((projector) =>
            projections.waitFor(projector, position, config.readYourWritesTimeoutMs),
          ),
        )
      ).every(Boolean),
    onError: life.warn('ledger feed failed'),
  });
}

function httpDeps(
  parts: HttpParts,
  rateLimitStore: RateLimitStore,
  ledgerFeed: LedgerFeed,
): HttpDeps {
  const { config, infra, chains, projections, queries, readiness, metrics } = parts;
  const { logger } = infra;
  return {
    // A database that is not there reaches the HTTP layer as one refusal, never as a driver's
    // error.
    commands: translateDatabaseErrors(parts.commands),
    queries: {
      orders: translateDatabaseErrors(queries.orders),
      orderHistory: translateDatabaseErrors(queries.orderHistory),
      appData: translateDatabaseErrors(queries.appData),
      tokenHolders: translateDatabaseErrors(queries.tokenHolders),
      trades: translateDatabaseErrors(queries.trades),
      auctions: translateDatabaseErrors(queries.auctions),
      competitions: translateDatabaseErrors(queries.competitions),
      subscriptions: translateDatabaseErrors(queries.subscriptions),
      notices: translateDatabaseErrors(queries.notices),
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
    clock: parts.clock,
    version: config.version,
    logger,
    accessLog: config.accessLog,
    appDataSizeLimit: config.appDataSizeLimit,
    liveNetworks: chains.live.names,
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
}

function listen(server: Server, port: number, host: string, variable: string): Promise<void> {
  server.listen(port, host);
  return new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? portInUse(variable, port, host) : error),
    );
  });
}

const portInUse = (variable: string, port: number, host: string) =>
  new StartupError(
    `${variable} ${port} on ${host} is in use by another program: stop it, or set ${variable} to a free port`,
  );
