// Fixed windows in UTC (spec: Limits): a one-minute window for the rate limit and a calendar
// month for the cap. Windows are identified by integers/strings so counters can be compared.

/** Index of the fixed one-minute window that contains `now`. */
export function minuteWindow(now: Date): number {
  return Math.floor(now.getTime() / 60_000);
}

/** Whole seconds until the current minute window ends: the `Retry-After` value (at least 1). */
export function secondsToWindowEnd(now: Date): number {
  const ms = 60_000 - (now.getTime() % 60_000);
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Calendar month in UTC, e.g. "2026-11". */
export function monthKey(now: Date): string {
  return now.toISOString().slice(0, 7);
}
