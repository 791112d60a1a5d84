// How numbers and times read on every page.

const numbers = new Intl.NumberFormat('en-US');

export function count(n: number): string {
  return numbers.format(n);
}

/** "12%" of a cap; "0%" for a zero cap. */
export function percentOf(used: number, cap: number): string {
  return `${cap > 0 ? Math.floor((used / cap) * 100) : 0}%`;
}

/**
 * The shares of parts that make up a whole, each to the nearest per cent, adding up to the rounded
 * share of their sum (100% when they are the whole): the largest remainders are rounded up (2, 1 and
 * 0 of 3 are 67%, 33% and 0%, never 66% and 33%).
 */
export function sharesOf(parts: readonly number[], total: number): string[] {
  if (total <= 0) return parts.map(() => '0%');
  const exact = parts.map((n) => (n / total) * 100);
  const shares = exact.map(Math.floor);
  const sum = parts.reduce((a, n) => a + n, 0);
  let left = Math.round((sum / total) * 100) - shares.reduce((a, n) => a + n, 0);
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest);
  for (const { i, rest } of order) {
    if (left <= 0 || rest === 0) break;
    shares[i] = (shares[i] ?? 0) + 1;
    left--;
  }
  return shares.map((n) => `${n}%`);
}

/** One part's share of a whole, to the nearest per cent (a part not yet 100% never reads as 100%). */
export function shareOf(n: number, total: number): string {
  if (total <= 0) return '0%';
  const share = Math.round((n / total) * 100);
  return `${share === 100 && n < total ? 99 : share}%`;
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
