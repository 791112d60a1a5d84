// Usage notifications go out when an account's month reaches 75%, 90% and 100% of its cap
// (docs/api.md: Limits, billing and usage notices). A threshold is crossed by the one request that moves
// the counter from below it to at or above it; counter updates are atomic, so exactly one request
// sees each crossing.
export const NOTIFY_PERCENTS = [75, 90, 100] as const;
export type NotifyPercent = (typeof NOTIFY_PERCENTS)[number];

export function crossedThresholds(before: number, after: number, cap: number): NotifyPercent[] {
  if (cap <= 0 || after <= before) return [];
  return NOTIFY_PERCENTS.filter((pct) => {
    const at = Math.ceil((cap * pct) / 100);
    return before < at && after >= at;
  });
}

/**
 * The thresholds a month's usage has reached. Every billed call at or over a threshold may send its
 * notice until one went out (limits/notice-delivery.ts): a notice whose send failed is retried by
 * the next call instead of being lost with the call that crossed it.
 */
export function reachedThresholds(used: number, cap: number): NotifyPercent[] {
  return crossedThresholds(0, used, cap);
}
