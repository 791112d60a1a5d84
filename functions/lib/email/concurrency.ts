/** Default number of distinct domains resolved at once by checkMany. */
export const DEFAULT_CONCURRENCY = 32;

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
