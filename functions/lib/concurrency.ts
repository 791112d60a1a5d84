/**
 * Runs `task` for every item with at most `limit` running at once; resolves when all are done.
 * `task` must not reject (its outcome is a value the caller records), or the others are abandoned
 * mid-way. `index` is the item's position, for callers that keep results in input order.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await task(items[index] as T, index);
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
}
