/**
 * What an operator reads: the readiness verdicts, and the gauges `/metrics` reads when scraped
 * (projector and indexer lags, the outbox, the projection and auction threads' heaps, storage).
 */
import { allProjectors } from '../../projections/index.js';
import type { QuoteStore } from '../commands/quote-store.js';
import type { Config } from '../config.js';
import { countPending } from '../delivery/outbox.js';
import { createLedgerUsage } from '../ledger/postgres-usage.js';
import { registerScrapedGauges } from '../metrics/scraped-gauges.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { registerStorageMetrics } from '../metrics/storage.js';
import type { ProjectionThreadEngine } from '../projection-thread/thread.js';
import { BACKLOG_CAP, projectorBacklogs } from '../projector-backlogs.js';
import { createReadiness, type Readiness } from '../readiness.js';
import type { Auctions } from './auctions.js';
import type { Chains } from './chains.js';
import type { Infrastructure } from './infrastructure.js';

export function watchOperations(
  config: Config,
  infra: Infrastructure,
  chains: Chains,
  { projections, auctions }: { projections: ProjectionThreadEngine; auctions: Auctions },
  quoteStore: QuoteStore,
  metrics: ServiceMetrics,
): Readiness {
  const { pool, ledger, db } = infra;
  const projectors = allProjectors().map((projector) => projector.name);
  const live = chains.live;
  registerStorageMetrics(metrics.registry, {
    pool,
    ledger: config.ledger.kind === 'postgres' ? createLedgerUsage(pool) : null,
    quotes: quoteStore,
  });
  registerScrapedGauges(metrics.registry, {
    projectorBacklogs: () => projectorBacklogs(ledger, projections, projectors),
    backlogCap: BACKLOG_CAP,
    indexerLags: () =>
      Promise.all(
        [...live.names].map(async (name): Promise<[string, number | null]> => {
          // A network whose node or cursor does not answer has no figure this time.
          const behind = live
            .rpc(name)!
            .request('block number', (provider) => provider.getBlockNumber())
            .then((head) => live.indexer(name)!.behind(head));
          return [name, await behind.catch(() => null)];
        }),
      ),
    outboxPending: config.notifications.enabled ? () => countPending(db) : null,
    projectionThreadHeap: () => projections.heapUsed(),
    auctionThreadHeap: () => auctions.threadHeapUsed(),
  });
  return createReadiness({
    pool,
    ledger,
    projections,
    projectors,
    chains: live,
    limits: config.readiness,
    logger: infra.logger,
  });
}
