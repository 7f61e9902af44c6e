/**
 * Chain reads for many orders, a few in flight at once: a node answers several concurrent reads
 * far sooner than the same reads in turn, and a bounded number keeps a live node's rate limits.
 */
export async function mapAtOnce<T, R>(
  items: readonly T[],
  atOnce: number,
  read: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const reader = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await read(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, reader));
  return results;
}
