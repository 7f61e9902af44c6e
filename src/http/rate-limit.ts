/**
 * Rate limits per client on the costly writes: order submissions and quotes. A client is the
 * order owner named in the body's `from` where it is a valid address, else the caller's IP
 * (`ctx.ip`, which honours X-Forwarded-For: the app sets `proxy`). Budgets are per client across
 * all networks: one client's requests cost the same server whichever chain they name.
 *
 * Place the limiter after `jsonBody` (it reads `from`) and before validation and the command, so
 * a refused request does no further work.
 */
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { parseAddress } from '../domain/hex.js';
import { ApiError } from './errors.js';
import type { RateLimit, RateLimitStore } from './rate-limit-store.js';

export interface RateLimitOptions {
  store: RateLimitStore;
  limit: RateLimit;
  /** Names the budget (e.g. `orders`) in store keys and in the error's description. */
  bucket: string;
  clientOf(ctx: Context): string;
  logger: Logger;
}

/** The owner named in a parsed JSON body's `from`, else the caller's IP. */
export function requestClient(ctx: Context): string {
  const body: unknown = ctx.request.body;
  const from = typeof body === 'object' && body !== null ? (body as { from?: unknown }).from : null;
  const owner = parseAddress(from);
  return owner ? `owner:${owner}` : `ip:${ctx.ip}`;
}

export function rateLimit(options: RateLimitOptions): Middleware {
  const { store, limit, bucket, clientOf, logger } = options;
  return async (ctx, next) => {
    let decision;
    try {
      decision = await store.take(`${bucket}:${clientOf(ctx)}`, limit);
    } catch (error) {
      // A limiter outage (Redis down) must not take the order book down with it: serve.
      logger.warn({ err: error, bucket }, 'rate-limit store failed; request let through');
      return next();
    }
    if (!decision.allowed) {
      ctx.set('Retry-After', String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))));
      throw new ApiError(
        429,
        'RateLimited',
        `too many requests: ${bucket} are limited to ${limit.perSecond} per second per client`,
      );
    }
    return next();
  };
}

export interface RateLimitDeps {
  store: RateLimitStore;
  /** Requests per second per client; 0 means no limit. */
  quotesPerSecond: number;
  ordersPerSecond: number;
}

const unlimited: Middleware = (_ctx, next) => next();

function perClient(
  deps: { rateLimits: RateLimitDeps; logger: Logger },
  bucket: string,
  perSecond: number,
): Middleware {
  if (perSecond === 0) return unlimited;
  return rateLimit({
    store: deps.rateLimits.store,
    // A client may spend a second's worth at once, then keeps to the rate.
    limit: { perSecond, burst: perSecond },
    bucket,
    clientOf: requestClient,
    logger: deps.logger,
  });
}

/** For `POST /api/v1/orders`, after `jsonBody`. */
export function rateLimitOrders(deps: { rateLimits: RateLimitDeps; logger: Logger }): Middleware {
  return perClient(deps, 'orders', deps.rateLimits.ordersPerSecond);
}

/** For `POST /api/v1/quote`, after `jsonBody`. */
export function rateLimitQuotes(deps: { rateLimits: RateLimitDeps; logger: Logger }): Middleware {
  return perClient(deps, 'quotes', deps.rateLimits.quotesPerSecond);
}
