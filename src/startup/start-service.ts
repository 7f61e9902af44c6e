/**
 * Starts the whole service from a Config, step by step (each in a file of this folder): its
 * infrastructure, the chains, the projection thread, the notifications, the token reads, the
 * auctions, the commands, what operators read, and the HTTP API last. A step takes what earlier
 * ones made; one that only has to come later takes them as `_startedAfter`. `src/main.ts` runs
 * it for `npm start`; tests start it in process on port 0. A start that fails stops what it
 * had started.
 */
import type { Logger } from 'pino';
import type { Devnet } from '../chain/devnet/devnet.js';
import type { Config } from '../config.js';
import type { Ledger } from '../ledger/port.js';
import { createServiceMetrics } from '../metrics/service-metrics.js';
import type { PostgresDeadlines } from '../postgres/connection-options.js';
import { startProjectionThread } from '../projection-thread/thread.js';
import { newClockShift, shiftedClock, type ClockShift } from '../service-clock.js';
import { startAuctions } from './auctions.js';
import { startChains } from './chains.js';
import { createCommands } from './commands.js';
import { serveHttpApi } from './http-api.js';
import { openInfrastructure, type Infrastructure } from './infrastructure.js';
import { Lifetime } from './lifetime.js';
import { startNotifications } from './notifications.js';
import { watchOperations } from './operations.js';
import { createQueries } from './queries.js';
import { startTokenReads } from './token-reads.js';

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

export interface ServiceOptions {
  logger: Logger;
  /** What moves the service's clock forward; tests move it, to pass expiries. Default: none. */
  clockShift?: ClockShift;
  /** Deadlines of its PostgreSQL connections; default DEFAULT_POSTGRES_DEADLINES. */
  postgresDeadlines?: Partial<PostgresDeadlines>;
  /**
   * The module the auction thread runs: src/auction-thread/worker.ts unless a test wraps it (one
   * that ends the thread mid-auction, to show the restart).
   */
  auctionThreadUrl?: string;
}

export async function startService(
  config: Config,
  options: ServiceOptions,
): Promise<RunningService> {
  const { logger } = options;
  const clockShift = options.clockShift ?? newClockShift();
  const clock = shiftedClock(clockShift);
  const life = new Lifetime(logger);
  let infra: Infrastructure | null = null;
  // A restart at once waits for a stopping holder of the data directory.
  const stop = () => life.stop(async () => infra?.claim?.markStopping());
  try {
    infra = await openInfrastructure(config, life, logger, options.postgresDeadlines);
    const metrics = createServiceMetrics();
    const chains = await startChains(config, infra, life, metrics.rpc);
    // The projectors run on a thread of their own, with their own connections and ledger.
    const { ledger } = infra;
    const projections = await startProjectionThread({
      databaseUrl: infra.database.url,
      deadlines: infra.deadlines,
      ledger: config.ledger,
      batchWindowMs: config.projectionBatchWindowMs,
      comparePositions: (a, b) => ledger.comparePositions(a, b),
      onError: (err, projector) =>
        life.report('projection batch failed; retrying', err, { projector }),
      heapLimitMb: config.projectionThreadHeapMb,
    });
    life.onStop(() => projections.stop());
    const queries = createQueries(infra.db, infra.ledger);
    const notifications = await startNotifications(
      config,
      infra,
      queries,
      { chains, projections },
      clock,
      life,
      metrics.deliveries,
    );
    const tokens = await startTokenReads(config, infra, chains, { projections }, clock, life);
    const auctions = startAuctions(
      { config, infra, chains, tokens, metrics, clock, clockShift, life },
      projections,
      options.auctionThreadUrl,
    );
    const { commands, quoteStore } = createCommands({
      config,
      infra,
      chains,
      queries,
      tokens,
      auctions,
      notifications,
      clock,
      life,
    });
    const readiness = watchOperations(
      config,
      infra,
      chains,
      { projections, auctions },
      quoteStore,
      metrics,
    );
    // Serving means running: the autopilots too, whose thread loaded meanwhile.
    await auctions.started;
    const api = await serveHttpApi({
      config,
      infra,
      chains,
      projections,
      queries,
      commands,
      readiness,
      metrics,
      clock,
      life,
    });
    return {
      ...api,
      ledger,
      devnet: chains.devnet,
      liveNetworks: chains.live.names,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
