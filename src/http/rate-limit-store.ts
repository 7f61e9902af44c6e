/**
 * Token buckets behind the rate limits: the port, and the in-process store used when one
 * instance runs (several instances share one Redis store instead: ./rate-limit-redis.ts).
 *
 * A bucket holds at most `burst` tokens and refills at `perSecond`; a request takes one token or
 * is refused with the time until one is there.
 */

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  /** When refused: how long until a token is there; 0 when allowed. */
  retryAfterMs: number;
}

export interface RateLimitStore {
  take(key: string, limit: RateLimit): Promise<RateDecision>;
  close(): Promise<void>;
}

export interface MemoryStoreOptions {
  /** The service's clock (tests move it instead of sleeping). */
  clock: () => Date;
  /** Hard bound on tracked keys; past it the least recently used go first. */
  maxKeys?: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
  /** From then on the bucket is full again: forgetting it changes nothing. */
  fullAtMs: number;
}

/** One take on a bucket last seen in `state` (absent: a full bucket): the decision and new state. */
function takeToken(
  state: Bucket | undefined,
  limit: RateLimit,
  nowMs: number,
): { decision: RateDecision; bucket: Bucket } {
  // A clock that steps back (wall-clock adjustment) must not drain a bucket.
  const elapsedMs = state ? Math.max(0, nowMs - state.updatedMs) : 0;
  const refilled = state
    ? Math.min(limit.burst, state.tokens + (elapsedMs * limit.perSecond) / 1000)
    : limit.burst;
  const allowed = refilled >= 1;
  const tokens = allowed ? refilled - 1 : refilled;
  return {
    decision: {
      allowed,
      retryAfterMs: allowed ? 0 : Math.ceil(((1 - tokens) * 1000) / limit.perSecond),
    },
    bucket: {
      tokens,
      updatedMs: nowMs,
      fullAtMs: nowMs + Math.ceil(((limit.burst - tokens) * 1000) / limit.perSecond),
    },
  };
}

/**
 * Buckets in a Map kept in order of last use. A bucket that has refilled is the same as no
 * bucket, so idle ones are dropped from the front as requests come; memory follows the number of
 * clients seen within one refill time, and `maxKeys` caps it against a flood of distinct keys.
 */
export function createMemoryRateLimitStore(options: MemoryStoreOptions): RateLimitStore {
  const maxKeys = options.maxKeys ?? 100_000;
  const buckets = new Map<string, Bucket>();
  return {
    async take(key, limit) {
      const nowMs = options.clock().getTime();
      const { decision, bucket } = takeToken(buckets.get(key), limit, nowMs);
      // Re-inserting moves the key to the end: the Map's order is the order of last use.
      buckets.delete(key);
      buckets.set(key, bucket);
      for (const [oldest, { fullAtMs }] of buckets) {
        if (fullAtMs > nowMs && buckets.size <= maxKeys) break;
        buckets.delete(oldest);
      }
      return decision;
    },
    async close() {
      buckets.clear();
    },
  };
}
