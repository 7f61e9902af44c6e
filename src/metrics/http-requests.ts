/**
 * What the HTTP API answers, counted as it answers: every request by method, route pattern and
 * status with its duration; the orders placed and refused (by `errorType`); the requests a rate
 * limit refused, by route. One middleware, first in the chain, sees each final status and body.
 */
import type { Middleware } from 'koa';
import { Counter, Histogram, type Registry } from 'prom-client';
import { PREFIX, SECONDS } from './units.js';

/** Label sets `middleware` keeps at hand; beyond them (none are expected) it labels each request. */
const MAX_REQUEST_SERIES = 1024;
/** Where orders are placed: its answers count orders placed and refused. */
const PLACE_ORDER = '/:network/api/v1/orders';

/** The route pattern a request matched (bounded label values), not its concrete path. */
function routeOf(matched: unknown): string {
  return typeof matched === 'string' ? matched : 'unmatched';
}

/** The `errorType` of an error answer, or null. */
function errorTypeOf(status: number, body: unknown): string | null {
  if (status < 400 || typeof body !== 'object' || body === null) return null;
  const { errorType } = body as { errorType?: unknown };
  return typeof errorType === 'string' ? errorType : null;
}

/** One (method, route, status) of the HTTP metrics, as the middleware records it. */
interface RequestSeries {
  readonly labels: { method: string; route: string; status: string };
  /** The duration histogram's child for (method, route). */
  readonly durations: { observe(seconds: number): void };
  /** Requests answered since the counter last took them (at a scrape). */
  uncounted: number;
}

export function httpRequestMetrics(registry: Registry): Middleware {
  // prom-client checks and hashes the labels on every `inc` and `observe`, labelled children
  // included: a measurable share of a cheap request. So the middleware finds its series in maps
  // keyed by the label values (route patterns, not paths: bounded), counts requests there and
  // hands the counts to the counter when it is read; only the histogram, which takes no
  // batches, is called per request, through its child. The exposition is the same.
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
  const placed = new Counter({
    name: `${PREFIX}orders_placed_total`,
    help: 'Orders accepted (201), by network',
    labelNames: ['network'],
    registers: [registry],
  });
  const refused = new Counter({
    name: `${PREFIX}orders_rejected_total`,
    help: 'Orders refused, by network and errorType',
    labelNames: ['network', 'error_type'],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: `${PREFIX}rate_limit_refusals_total`,
    help: 'Requests a rate limit refused (429 RateLimited), by route pattern',
    labelNames: ['route'],
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

  return async (ctx, next) => {
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
      const errorType = errorTypeOf(status, ctx.body);
      if (errorType === 'RateLimited') rateLimited.inc({ route });
      // An order for a network that exists: an unknown one is no order of any network's.
      const network = (ctx.state as { network?: { name: string } }).network?.name;
      if (route === PLACE_ORDER && method === 'POST' && network !== undefined) {
        if (status === 201) placed.inc({ network });
        else refused.inc({ network, error_type: errorType ?? String(status) });
      }
    }
  };
}
