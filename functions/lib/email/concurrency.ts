/** Default number of distinct domains resolved at once by checkMany. */
export const DEFAULT_CONCURRENCY = 32;

/**
 * Runs `task` for every item with at most `limit` running at once; resolves when all are done.
 * `task` must not reject (DNS outcomes are values here).
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  const workers = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
}
