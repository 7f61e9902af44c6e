/**
 * Coalesces point lookups: every key asked for during one turn of the event loop is fetched by
 * a single query when the turn ends (setImmediate runs after the poll phase has handed out
 * every request that arrived). On these machines a PostgreSQL round trip costs ~0.3 ms of CPU
 * in system calls alone (BENCHMARKS.md), so one `= ANY($1)` query for many concurrent GETs is
 * far cheaper than one query each. A lookup never waits longer than the current turn.
 */
export type BatchFetch<K, V> = (group: string, keys: readonly K[]) => Promise<Map<K, V>>;

interface Pending<K, V> {
  keys: Set<K>;
  waiters: { key: K; resolve: (value: V | null) => void; reject: (error: unknown) => void }[];
}

export function createCoalescer<K, V>(fetch: BatchFetch<K, V>) {
  const pending = new Map<string, Pending<K, V>>();
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const groups = [...pending];
    pending.clear();
    for (const [group, { keys, waiters }] of groups) {
      fetch(group, [...keys]).then(
        (found) => waiters.forEach((w) => w.resolve(found.get(w.key) ?? null)),
        (error: unknown) => waiters.forEach((w) => w.reject(error)),
      );
    }
  };

  /** Resolves the value of `key` within `group` (e.g. a network), or null when absent. */
  return (group: string, key: K): Promise<V | null> =>
    new Promise((resolve, reject) => {
      let entry = pending.get(group);
      if (!entry) pending.set(group, (entry = { keys: new Set(), waiters: [] }));
      entry.keys.add(key);
      entry.waiters.push({ key, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
