// Small helpers shared by the benchmarks.
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function minMax(xs: number[], digits = 2): string {
  return `${round(Math.min(...xs), digits)}–${round(Math.max(...xs), digits)}`;
}

/** A latency's spread as the tables show it: "p99 X; min–max". */
export function p99Spread(xs: number[], digits = 2): string {
  return `p99 ${round(percentile(xs, 99), digits)}; ${minMax(xs, digits)}`;
}
