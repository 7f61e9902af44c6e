/**
 * Rate limits per client on the costly requests: order submissions, quotes, and price reads
 * (`native_price`, `usdPrice`: each may cost chain calls of the operator's RPC quota). A client is
 * the caller's IP (`ctx.ip`: the socket's peer, or with trusted proxies the X-Forwarded-For entry
 * the outermost of them appended; see app.ts), an IPv6 one by its /64 (client-address.ts). Not the
 * body's `from`: it is unauthenticated, so anyone could spend an owner's budget by naming it, and
 * even a signed order can be replayed by anyone who read it from the API. Budgets are per client
 * across all networks: one client's requests cost the same server whichever chain they name.
 *
 * Place the limiter first, before the body is read, so a refused request does no further work.
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { clientOf } from './client-address.js';
import { ApiError } from './errors.js';
import type { RateLimit, RateLimitStore } from './rate-limit-store.js';

export interface RateLimitOptions {
  store: RateLimitStore;
  limit: RateLimit;
  /** Names the budget (e.g. `orders`) in store keys and in the error's description. */
  bucket: string;
  logger: Logger;
}

export function rateLimit(options: RateLimitOptions): Middleware {
  const { store, limit, bucket, logger } = options;
  return async (ctx, next) => {
    let decision;
    try {
      decision = await store.take(`${bucket}:client:${clientOf(ctx.ip)}`, limit);
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
  pricesPerSecond: number;
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

/** For `GET /api/v1/token/{token}/native_price` and `GET /{chainId}/tokens/{token}/usdPrice`. */
export function rateLimitPrices(deps: { rateLimits: RateLimitDeps; logger: Logger }): Middleware {
  return perClient(deps, 'prices', deps.rateLimits.pricesPerSecond);
}
