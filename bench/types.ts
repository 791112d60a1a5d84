// One measured figure of BENCHMARKS.md. Every benchmark module exports
// `run(): Promise<BenchResult[]>`; bench/run.ts calls them all in one process and rewrites the file.
export interface BenchResult {
  /** Which BENCHMARKS.md section the figure belongs to (e.g. "Email checks"). */
  group: string;
  figure: string;
  /** Median of the samples, in `unit`. */
  median: number;
  /** Spread as "min–max" or "p99 X", in `unit`. */
  spread: string;
  unit: string;
  /** Target from the issue, and whether it was met, e.g. ">= 50,000/s: met". */
  target?: string;
  samples: number;
}
