/**
 * The service's gauges read when scraped: how far each projector and each indexer is behind,
 * the deliveries pending, the projection thread's heap.
 */
import type { Registry } from 'prom-client';
import type { Backlog } from '../ledger/port.js';
import { backlogSeconds } from '../projector-backlogs.js';
import { readGauge, type Sample } from './read-gauge.js';
import { PREFIX } from './units.js';

export interface ScrapedSources {
  /** What each projector has yet to apply. */
  projectorBacklogs(): Map<string, Promise<Backlog>>;
  /** The most events a projector's backlog counts (its gauge reads this when it is further). */
  backlogCap: number;
  /** Per live network, the confirmed blocks its indexer has yet to read (null: no cursor yet). */
  indexerLags(): Promise<[network: string, blocks: number | null][]>;
  /** Deliveries not yet made nor given up; null when notifications are off. */
  outboxPending: (() => Promise<number>) | null;
  /** The projection thread's heap in use; null when it does not answer. */
  projectionThreadHeap(): Promise<number | null>;
  /** The auction thread's heap in use; null when it does not answer. */
  auctionThreadHeap(): Promise<number | null>;
}

export function registerScrapedGauges(registry: Registry, sources: ScrapedSources): void {
  const lags = async (figure: (backlog: Backlog) => number) => {
    const backlogs = sources.projectorBacklogs();
    return Promise.all(
      [...backlogs].map(async ([projector, backlog]): Promise<Sample> => [
        { projector },
        figure(await backlog),
      ]),
    );
  };
  readGauge(
    registry,
    {
      name: `${PREFIX}projector_lag_events`,
      help: `Ledger events a projector has yet to apply (counted up to ${sources.backlogCap}), by projector`,
      labelNames: ['projector'],
    },
    () => lags((backlog) => backlog.events),
  );
  readGauge(
    registry,
    {
      name: `${PREFIX}projector_lag_seconds`,
      help: 'Age of the oldest ledger event a projector has yet to apply (0: none), by projector',
      labelNames: ['projector'],
    },
    () => lags((backlog) => backlogSeconds(backlog, Date.now())),
  );
  readGauge(
    registry,
    {
      name: `${PREFIX}indexer_lag_blocks`,
      help: "Confirmed blocks a network's chain indexer has yet to read, by network",
      labelNames: ['network'],
    },
    async () =>
      (await sources.indexerLags()).flatMap(([network, blocks]): Sample[] =>
        blocks === null ? [] : [[{ network }, blocks]],
      ),
  );
  const { outboxPending } = sources;
  if (outboxPending) {
    readGauge(
      registry,
      {
        name: `${PREFIX}delivery_outbox_pending`,
        help: 'Notice deliveries not yet made nor given up',
      },
      async () => [[{}, await outboxPending()]],
    );
  }
  for (const [thread, heap] of [
    ['projection', sources.projectionThreadHeap],
    ['auction', sources.auctionThreadHeap],
  ] as const) {
    readGauge(
      registry,
      {
        name: `${PREFIX}${thread}_thread_heap_used_bytes`,
        help: `The ${thread} thread's V8 heap in use (nodejs_heap_size_used_bytes is this thread's)`,
      },
      async () => {
        const heapUsed = await heap();
        return heapUsed === null ? null : [[{}, heapUsed]];
      },
    );
  }
}
