/**
 * A cache of chain reads in flight or done: a read is kept under its key unless it fails, so that
 * a failed read is tried again by the next caller rather than answered from memory.
 */
export function remember<K, V>(cache: Map<K, Promise<V>>, key: K, promise: Promise<V>): Promise<V> {
  cache.set(key, promise);
  promise.catch(() => {
    if (cache.get(key) === promise) cache.delete(key);
  });
  return promise;
}
