// The per-minute limit as response headers (docs/api.md: Limits), in the names GitHub's API made common.
// X-RateLimit-Reset is the end of the window in epoch seconds, as GitHub sends it: a fixed instant
// every call of the window agrees on; Retry-After on a 429 gives the same end as seconds from now.

/** One account's minute window as the counter showed it (limits/admission.ts). */
export interface MinuteUsage {
  /** The account's calls per minute. */
  limit: number;
  /** Calls counted in the window, this one included. */
  used: number;
  /** The window (limits/windows.ts minuteWindow): it ends at `(window + 1) * 60` epoch seconds. */
  window: number;
}

export function rateLimitHeaders(minute: MinuteUsage): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(minute.limit),
    'X-RateLimit-Remaining': String(Math.max(0, minute.limit - minute.used)),
    'X-RateLimit-Reset': String((minute.window + 1) * 60),
  };
}
