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

/**
 * At most `limit` tasks at once across every caller that shares it. The checker holds one, so all
 * the checks of a container (several job chunks at once, say) together keep at most `limit` DNS
 * lookups in flight: a burst of hundreds of UDP queries is dropped by resolvers (AWS's VPC
 * resolver takes 1,024 packets per second per interface) and would time out as dns_unavailable.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, or give it back.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
