/**
 * Prometheus metrics (DESIGN.md §8), served by `GET /metrics` to holders of the admin API key:
 * the process (memory, garbage collection, event-loop delay), every HTTP request by route
 * pattern and status, and the read-your-writes wait of accepted writes (how far the projections
 * lag behind the ledger, as clients feel it). The composition root registers further gauges
 * (the delivery outbox) on `registry`.
 */
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

const PREFIX = 'batchbook_';
const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export interface Metrics {
  readonly registry: Registry;
  /** Counts and times every request; first in the middleware chain, so it sees final statuses. */
  readonly http: Middleware;
  /** One write's wait for its own projection; `caughtUp` false when the wait timed out. */
  observeReadYourWrites(projector: string, seconds: number, caughtUp: boolean): void;
}

/** The route pattern a request matched (bounded label values), not its concrete path. */
function routeOf(matched: unknown): string {
  return typeof matched === 'string' ? matched : 'unmatched';
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  const requests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: SECONDS,
    registers: [registry],
  });
  const waits = new Histogram({
    name: `${PREFIX}read_your_writes_wait_seconds`,
    help: 'Wait of an accepted write until its projector applied it, by projector',
    labelNames: ['projector'],
    buckets: SECONDS,
    registers: [registry],
  });
  const timeouts = new Counter({
    name: `${PREFIX}read_your_writes_timeouts_total`,
    help: 'Writes answered before their projector applied them (the wait timed out)',
    labelNames: ['projector'],
    registers: [registry],
  });

  return {
    registry,
    http: async (ctx, next) => {
      const stop = durations.startTimer();
      try {
        await next();
      } finally {
        // Errors are turned into statuses by the error middleware, which runs inside this one.
        const labels = { method: ctx.method, route: routeOf(ctx._matchedRoute) };
        stop(labels);
        requests.inc({ ...labels, status: String(ctx.status) });
      }
    },
    observeReadYourWrites(projector, seconds, caughtUp) {
      waits.observe({ projector }, seconds);
      if (!caughtUp) timeouts.inc({ projector });
    },
  };
}
