import {
  DEFAULT_POLICY_VERDICT,
  isPolicyReason,
  type PolicyVerdicts,
  REASON_VERDICT,
  type ReasonCode,
  type Verdict,
} from './reasons.js';

const SEVERITY: Readonly<Record<Verdict, number>> = { accept: 0, review: 1, reject: 2 };

/** The verdict one reason sets: REASON_VERDICT's, or for a policy reason the policy's. */
export function reasonVerdict(reason: ReasonCode, policy: PolicyVerdicts = {}): Verdict {
  return isPolicyReason(reason) ? (policy[reason] ?? DEFAULT_POLICY_VERDICT[reason]) : REASON_VERDICT[reason];
}

/**
 * The most severe verdict among the reasons (reject > review > accept); `accept` when there are
 * none. `policy` gives the verdict of the reasons the account's rules decide (relay_alias: review
 * unless the account's relayAliases policy is reject).
 */
export function verdictFor(reasons: readonly ReasonCode[], policy?: PolicyVerdicts): Verdict {
  let verdict: Verdict = 'accept';
  for (const reason of reasons) {
    const candidate = reasonVerdict(reason, policy);
    if (SEVERITY[candidate] > SEVERITY[verdict]) verdict = candidate;
  }
  return verdict;
}
