// Fixed windows in UTC (docs/api.md: Limits, billing and usage notices): a one-minute window for the
// rate limit and a calendar month for the cap. Windows are identified by integers/strings so
// counters can be compared.

/** Index of the fixed one-minute window that contains `now`. */
export function minuteWindow(now: Date): number {
  return Math.floor(now.getTime() / 60_000);
}

/** Whole seconds until the current minute window ends: the `Retry-After` value (at least 1). */
export function secondsToWindowEnd(now: Date): number {
  return secondsToEndOfWindow(minuteWindow(now), now);
}

/**
 * Whole seconds from `now` until minute window `window` ends (at least 1). A window later than
 * now's own is the next minute, opened by another call while this one was on its way to the
 * counter: when that minute is full, its end is when this caller may retry.
 */
export function secondsToEndOfWindow(window: number, now: Date): number {
  const ms = (window + 1) * 60_000 - now.getTime();
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Calendar month in UTC, e.g. "2026-11". */
export function monthKey(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** Calendar day in UTC, e.g. "2026-11-24". */
export function dayKey(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The UTC day minute window `window` belongs to. */
export function dayOfWindow(window: number): string {
  return dayKey(new Date(window * 60_000));
}
