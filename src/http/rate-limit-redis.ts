/**
 * The rate-limit store shared by several instances: one token bucket per key in Redis, read and
 * updated by one Lua script so that concurrent instances never both spend the last token. Time
 * is Redis's own (`TIME`), so the instances' clocks need not agree. Needs Redis 5 or later
 * (scripts that call TIME and then write).
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RateDecision, RateLimit, RateLimitStore } from './rate-limit-store.js';

const KEY_PREFIX = 'batchbook:rate-limit:';

// KEYS[1]: the bucket; ARGV: perSecond, burst. Returns {allowed (0/1), retryAfterMs}.
// A bucket's hash expires once it would be full again, which is the same as no bucket.
const TAKE_TOKEN = `
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local perSecond = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'updatedMs')
local tokens = burst
if state[1] then
  local elapsedMs = math.max(0, nowMs - tonumber(state[2]))
  tokens = math.min(burst, tonumber(state[1]) + elapsedMs * perSecond / 1000)
end
local allowed = 0
local retryAfterMs = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  retryAfterMs = math.ceil((1 - tokens) * 1000 / perSecond)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updatedMs', tostring(nowMs))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) * 1000 / perSecond) + 1)
return {allowed, retryAfterMs}
`;
const TAKE_TOKEN_SHA = createHash('sha1').update(TAKE_TOKEN).digest('hex');

export interface RedisStoreOptions {
  url: string;
  /** Connection trouble after start-up; the client reconnects by itself. */
  onError(error: Error): void;
  /** Longest wait for one reply before the take fails (the limiter then lets the request in). */
  commandTimeoutMs?: number;
}

/** Connects before answering, so a wrong REDIS_URL stops start-up instead of every request. */
export async function createRedisRateLimitStore(
  options: RedisStoreOptions,
): Promise<RateLimitStore> {
  const client = new Redis(options.url, {
    lazyConnect: true,
    // While disconnected a take fails at once rather than queueing up behind the reconnect.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
  });
  client.on('error', options.onError);
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(`REDIS_URL: cannot connect to Redis: ${(error as Error).message}`, {
      cause: error,
    });
  }

  async function run(key: string, limit: RateLimit): Promise<unknown> {
    const args = [1, KEY_PREFIX + key, limit.perSecond, limit.burst] as const;
    try {
      return await client.evalsha(TAKE_TOKEN_SHA, ...args);
    } catch (error) {
      // The server forgets scripts on restart or SCRIPT FLUSH: send the source once more.
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      return client.eval(TAKE_TOKEN, ...args);
    }
  }

  return {
    async take(key, limit): Promise<RateDecision> {
      const [allowed, retryAfterMs] = (await run(key, limit)) as [number, number];
      return { allowed: allowed === 1, retryAfterMs };
    },
    async close() {
      await client.quit().catch(() => client.disconnect());
    },
  };
}
