/**
 * Lookups that remember, for a while, what they found nothing for. The token endpoints ask the
 * chain about any address a caller names: without this, naming the same unknown token again and
 * again would spend one RPC call after another of the operator's quota. A found value is not
 * kept here (the lookups cache what they may: decimals for good, prices per block); a miss is,
 * for `ttlMs` of the service's clock, after which the chain is asked again (a pool or a contract
 * may have come since).
 */

export interface RememberedMissesOptions {
  /** The service's clock (tests move it instead of sleeping). */
  clock: () => Date;
  /** How long a miss is remembered; 0: not at all. */
  ttlMs: number;
  /** Hard bound on remembered misses, against a flood of distinct keys; the oldest go first. */
  maxKeys?: number;
}

export function rememberMisses<K, V>(
  lookup: (key: K) => Promise<V | null>,
  options: RememberedMissesOptions,
): (key: K) => Promise<V | null> {
  const { clock, ttlMs, maxKeys = 100_000 } = options;
  if (ttlMs === 0) return lookup;
  // When each miss is forgotten, in the order they were found: the soonest forgotten first.
  const misses = new Map<K, number>();
  return async (key) => {
    const forgottenAt = misses.get(key);
    if (forgottenAt !== undefined && forgottenAt > clock().getTime()) return null;
    const value = await lookup(key);
    if (value === null) {
      const nowMs = clock().getTime();
      misses.delete(key);
      misses.set(key, nowMs + ttlMs);
      for (const [oldest, at] of misses) {
        if (at > nowMs && misses.size <= maxKeys) break;
        misses.delete(oldest);
      }
    }
    return value;
  };
}
