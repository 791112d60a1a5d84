// How numbers and times read on every page.

const numbers = new Intl.NumberFormat('en-US');

export function count(n: number): string {
  return numbers.format(n);
}

/** "12%" of a cap; "0%" for a zero cap. */
export function percentOf(used: number, cap: number): string {
  return `${cap > 0 ? Math.floor((used / cap) * 100) : 0}%`;
}

export function dateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A moment to the second (a delivery attempt's time), in the reader's time zone. */
export function dateTimeSeconds(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export const SEPARATOR_NAMES: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };
