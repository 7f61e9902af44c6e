/**
 * Prometheus metrics (DESIGN.md §8), served by `GET /metrics` to holders of the admin API key:
 * the process (memory, garbage collection, event-loop delay), every HTTP request by route
 * pattern and status, the read-your-writes wait of accepted writes (how far the projections
 * lag behind the ledger, as clients feel it) and the autopilots' waits for them that timed out.
 * The composition root registers further gauges on `registry`: the delivery outbox, the
 * projection thread's heap, and the storage (src/storage-metrics.ts).
 */
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

const PREFIX = 'batchbook_';
const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Label sets `http` keeps at hand; beyond them (none are expected) it labels each request. */
const MAX_REQUEST_SERIES = 1024;

export interface Metrics {
  readonly registry: Registry;
  /** Counts and times every request; first in the middleware chain, so it sees final statuses. */
  readonly http: Middleware;
  /** One write's wait for its own projection; `caughtUp` false when the wait timed out. */
  observeReadYourWrites(projector: string, seconds: number, caughtUp: boolean): void;
  /** An autopilot's wait for the read models to take in its auction timed out (it waits on). */
  countAutopilotReadModelTimeout(network: string): void;
}

/** The route pattern a request matched (bounded label values), not its concrete path. */
function routeOf(matched: unknown): string {
  return typeof matched === 'string' ? matched : 'unmatched';
}

/** One (method, route, status) of the HTTP metrics, as `http` records it. */
interface RequestSeries {
  readonly labels: { method: string; route: string; status: string };
  /** The duration histogram's child for (method, route). */
  readonly durations: { observe(seconds: number): void };
  /** Requests answered since the counter last took them (at a scrape). */
  uncounted: number;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  // prom-client checks and hashes the labels on every `inc` and `observe`, labelled children
  // included: a measurable share of a cheap request. So `http` finds its series in maps keyed by
  // the label values (route patterns, not paths: bounded), counts requests there and hands the
  // counts to the counter when it is read; only the histogram, which takes no batches, is
  // called per request, through its child. The exposition is the same.
  const series: RequestSeries[] = [];
  const seriesByLabels = new Map<string, Map<string, Map<number, RequestSeries>>>();
  const requests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      for (const one of series) {
        if (one.uncounted === 0) continue;
        this.inc(one.labels, one.uncounted);
        one.uncounted = 0;
      }
    },
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
  const autopilotTimeouts = new Counter({
    name: `${PREFIX}autopilot_read_model_timeouts_total`,
    help: 'Waits of an autopilot for the read models to take in its auction that timed out (its next cut waits on)',
    labelNames: ['network'],
    registers: [registry],
  });

  /** The series of these labels; null once `MAX_REQUEST_SERIES` are kept. */
  function seriesOf(method: string, route: string, status: number): RequestSeries | null {
    let byRoute = seriesByLabels.get(method);
    let byStatus = byRoute?.get(route);
    const found = byStatus?.get(status);
    if (found) return found;
    if (series.length >= MAX_REQUEST_SERIES) return null;
    if (!byRoute) seriesByLabels.set(method, (byRoute = new Map()));
    if (!byStatus) byRoute.set(route, (byStatus = new Map()));
    const made: RequestSeries = {
      labels: { method, route, status: String(status) },
      durations: durations.labels(method, route),
      uncounted: 0,
    };
    byStatus.set(status, made);
    series.push(made);
    return made;
  }

  return {
    registry,
    http: async (ctx, next) => {
      const began = performance.now();
      try {
        await next();
      } finally {
        // Errors are turned into statuses by the error middleware, which runs inside this one.
        const seconds = (performance.now() - began) / 1000;
        const { method, status } = ctx;
        const route = routeOf(ctx._matchedRoute);
        const one = seriesOf(method, route, status);
        if (one) {
          one.durations.observe(seconds);
          one.uncounted += 1;
        } else {
          durations.observe({ method, route }, seconds);
          requests.inc({ method, route, status: String(status) });
        }
      }
    },
    observeReadYourWrites(projector, seconds, caughtUp) {
      waits.observe({ projector }, seconds);
      if (!caughtUp) timeouts.inc({ projector });
    },
    countAutopilotReadModelTimeout(network) {
      autopilotTimeouts.inc({ network });
    },
  };
}
