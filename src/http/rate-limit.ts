/**
 * Rate limits per client on every write and on the costly reads: order submissions, quotes,
 * price reads (`native_price`, `usdPrice`: each may cost chain calls of the operator's RPC
 * quota), app-data registrations, cancellations, and changes to subscriptions, whose additions
 * also have an hourly budget (an account may hold 20, and fresh keys cost nothing: the budget
 * counts the caller, whichever accounts it names). A client is the caller's IP (`ctx.ip`: the
 * socket's peer, or with trusted proxies the X-Forwarded-For entry the outermost of them
 * appended; see app.ts), an IPv6 one by its /64 (client-address.ts). Not the body's `from` nor
 * any signer: both are the client's to choose, and even a signed order can be replayed by anyone
 * who read it from the API. Budgets are per client across all networks: one client's requests
 * cost the same server whichever chain they name.
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
  /** The budget as the refusal states it, e.g. `5 per second`. */
  budget: string;
  logger: Logger;
}

export function rateLimit(options: RateLimitOptions): Middleware {
  const { store, limit, bucket, budget, logger } = options;
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
        'RateLimited',
        `too many requests: ${bucket} are limited to ${budget} per client`,
      );
    }
    return next();
  };
}

/** Each budget's count per client and period (burst the same); 0 means no limit. */
export interface RateLimitSettings {
  quotesPerSecond: number;
  ordersPerSecond: number;
  pricesPerSecond: number;
  appDataPerSecond: number;
  cancellationsPerSecond: number;
  /** Subscriptions added, removed or verified. */
  subscriptionChangesPerSecond: number;
  /** Subscriptions added, per hour. */
  subscriptionsPerHour: number;
}

export interface RateLimitDeps extends RateLimitSettings {
  store: RateLimitStore;
}

type Period = 'second' | 'hour';
const PERIOD_SECONDS: Readonly<Record<Period, number>> = { second: 1, hour: 3600 };

/** Each budget: the setting that holds its count, and the period it is counted over. */
const BUDGETS = {
  orders: { setting: 'ordersPerSecond', per: 'second' },
  quotes: { setting: 'quotesPerSecond', per: 'second' },
  prices: { setting: 'pricesPerSecond', per: 'second' },
  'app-data registrations': { setting: 'appDataPerSecond', per: 'second' },
  cancellations: { setting: 'cancellationsPerSecond', per: 'second' },
  'subscription changes': { setting: 'subscriptionChangesPerSecond', per: 'second' },
  'new subscriptions': { setting: 'subscriptionsPerHour', per: 'hour' },
} as const satisfies Record<string, { setting: keyof RateLimitSettings; per: Period }>;

export type Budget = keyof typeof BUDGETS;

const unlimited: Middleware = (_ctx, next) => next();

/**
 * The limiter of one budget, for the routes that spend it: `orders` (POST /orders), `quotes`
 * (POST /quote), `prices` (native_price and usdPrice), `app-data registrations` (both PUTs),
 * `cancellations` (both DELETEs of orders), `subscription changes` (POST and DELETE of
 * subscriptions, and e-mail verifications) and, after it, `new subscriptions` (POST).
 */
export function rateLimited(
  deps: { rateLimits: RateLimitDeps; logger: Logger },
  budget: Budget,
): Middleware {
  const { setting, per } = BUDGETS[budget];
  const perPeriod = deps.rateLimits[setting];
  if (perPeriod === 0) return unlimited;
  return rateLimit({
    store: deps.rateLimits.store,
    // A client may spend a period's worth at once, then keeps to the rate.
    limit: { perSecond: perPeriod / PERIOD_SECONDS[per], burst: perPeriod },
    bucket: budget,
    budget: `${perPeriod} per ${per}`,
    logger: deps.logger,
  });
}
