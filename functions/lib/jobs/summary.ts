import type { EmailCheckResult } from '../email/index.js';
import { REASON_CODES, type ReasonCode, VERDICTS, type Verdict } from '../email/reasons.js';

// Summary key layout (ours to choose; docs/api.md: Email list jobs, "Summary"):
//   { "verdicts": { "accept": n, "review": n, "reject": n },
//     "reasons":  { "<reason code>": n, ... } }   only reasons that occurred, in REASON_CODES order
// Counts are rows (duplicates included). Each chunk's counts are stored with its result lines; the
// job's totals are set flat on the job item as c_<key> when it completes.

export type Counts = Record<string, number>;

export function countKeys(): string[] {
  return [...VERDICTS, ...REASON_CODES];
}

export function countResults(results: readonly EmailCheckResult[]): Counts {
  const counts: Counts = {};
  for (const r of results) {
    counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
    for (const reason of r.reasons) counts[reason] = (counts[reason] ?? 0) + 1;
  }
  return counts;
}

export interface Summary {
  verdicts: Record<Verdict, number>;
  reasons: Partial<Record<ReasonCode, number>>;
}

export function summaryFrom(counts: Counts): Summary {
  const verdicts = Object.fromEntries(VERDICTS.map((v) => [v, counts[v] ?? 0])) as Record<Verdict, number>;
  const reasons: Partial<Record<ReasonCode, number>> = {};
  for (const code of REASON_CODES) if ((counts[code] ?? 0) > 0) reasons[code] = counts[code];
  return { verdicts, reasons };
}
