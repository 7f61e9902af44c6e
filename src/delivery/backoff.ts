/**
 * Retry delays of the delivery outbox: exponential backoff with jitter, a pure function of the
 * attempt count and a random number (the worker passes `Math.random()`, tests pass constants).
 */

export interface BackoffPolicy {
  /** The delay after the first failed attempt. */
  baseMs: number;
  /** No delay is longer than this. */
  maxMs: number;
}

/** The jitter spreads each delay over ±20% of its nominal value. */
export const JITTER = 0.2;

/**
 * The delay before the next attempt after `attempts` failed ones (1 after the first failure):
 * `baseMs · 2^(attempts − 1)`, capped at `maxMs`, scaled by a factor in [0.8, 1.2) drawn from
 * `random` ∈ [0, 1), and capped at `maxMs` again. Whole milliseconds, at least 1.
 */
export function backoffDelayMs(attempts: number, policy: BackoffPolicy, random: number): number {
  const exponent = Math.max(0, Math.floor(attempts) - 1);
  // 2^1024 is Infinity; Math.min keeps the cap.
  const nominal = Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
  const r = Number.isFinite(random) ? Math.min(Math.max(random, 0), 1) : 0.5;
  const jittered = nominal * (1 - JITTER + 2 * JITTER * r);
  return Math.max(1, Math.round(Math.min(policy.maxMs, jittered)));
}
