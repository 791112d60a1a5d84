import { REASON_VERDICT, type ReasonCode, type Verdict } from './reasons.js';

const SEVERITY: Readonly<Record<Verdict, number>> = { accept: 0, review: 1, reject: 2 };

/**
 * The most severe verdict among the reasons (reject > review > accept); `accept` when there are
 * none.
 */
export function verdictFor(reasons: readonly ReasonCode[]): Verdict {
  let verdict: Verdict = 'accept';
  for (const reason of reasons) {
    const candidate = REASON_VERDICT[reason];
    if (SEVERITY[candidate] > SEVERITY[verdict]) verdict = candidate;
  }
  return verdict;
}
