// Waiting between the tries of a write that lost a race to another write of the same item (an
// account's rules, its webhook endpoints): each lost try waits a random part of a doubling window
// ("full jitter"), so that racers spread out instead of colliding again on every round.

export interface Backoff {
  /** Tries in all, the first without waiting. */
  readonly attempts: number;
  /** The first window, in ms; it doubles up to maxMs. */
  readonly baseMs: number;
  readonly maxMs: number;
}

/** For one item that a person's saves (a dashboard's tabs, a script) change: 20 at once all land. */
export const CONTENDED_SAVE: Backoff = { attempts: 10, baseMs: 20, maxMs: 1000 };

/** Before try `attempt` (0-based): nothing for the first, then a random part of the doubled window. */
export function beforeTry(
  attempt: number,
  backoff: Backoff,
  random: () => number = Math.random,
): Promise<void> {
  if (attempt === 0) return Promise.resolve();
  const ms = Math.floor(random() * Math.min(backoff.maxMs, backoff.baseMs * 2 ** attempt));
  return new Promise((resolve) => setTimeout(resolve, ms));
}
