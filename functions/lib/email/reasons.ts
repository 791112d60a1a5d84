// Reason codes of the email check (docs/api.md: Email checks, "Reasons order"). The array order
// IS the severity order: a result's `reasons` are listed in it, and the verdict is that of the
// first one. Everything else in the code base refers to these constants, never to string literals.
//
// blocked_by_account comes first after invalid_syntax (the two never meet: an invalid address has
// no domain to block): the account's own block list is its explicit decision about the address, so
// it leads. relay_alias sits between the reject reasons and the review reasons, since its verdict is
// the account's policy (review or reject, EmailRules.relayAliases): wherever the policy puts it, every
// reason before it rejects and every reason after it reviews, so the first reason still gives the
// verdict. (A relay alias is never disposable_domain nor typo_suspected.)

export const REASON_CODES = [
  'invalid_syntax',
  'blocked_by_account',
  'domain_not_found',
  'no_mail_server',
  'disposable_domain',
  'relay_alias',
  'typo_suspected',
  'role_account',
  'implicit_mx',
  'dns_unavailable',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

export const Reason = {
  InvalidSyntax: 'invalid_syntax',
  BlockedByAccount: 'blocked_by_account',
  DomainNotFound: 'domain_not_found',
  NoMailServer: 'no_mail_server',
  DisposableDomain: 'disposable_domain',
  RelayAlias: 'relay_alias',
  TypoSuspected: 'typo_suspected',
  RoleAccount: 'role_account',
  ImplicitMx: 'implicit_mx',
  DnsUnavailable: 'dns_unavailable',
} as const satisfies Record<string, ReasonCode>;

/** Verdicts, least severe first. */
export const VERDICTS = ['accept', 'review', 'reject'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Reasons whose verdict is the account's policy, not fixed: relay_alias (EmailRules.relayAliases). */
export const POLICY_REASONS = ['relay_alias'] as const;
export type PolicyReasonCode = (typeof POLICY_REASONS)[number];
/** Every other reason: its verdict is REASON_VERDICT's. */
export type FixedReasonCode = Exclude<ReasonCode, PolicyReasonCode>;

/** The verdict a policy reason can set: it is only reported when the policy is not `accept`. */
export type PolicyVerdict = Exclude<Verdict, 'accept'>;
/** The verdict of each policy reason in one check; absent ones take DEFAULT_POLICY_VERDICT. */
export type PolicyVerdicts = Readonly<Partial<Record<PolicyReasonCode, PolicyVerdict>>>;

/** The verdict each fixed reason sets. */
export const REASON_VERDICT: Readonly<Record<FixedReasonCode, Verdict>> = {
  invalid_syntax: 'reject',
  blocked_by_account: 'reject',
  domain_not_found: 'reject',
  no_mail_server: 'reject',
  disposable_domain: 'reject',
  typo_suspected: 'review',
  role_account: 'review',
  implicit_mx: 'review',
  dns_unavailable: 'review',
};

/** A policy reason's verdict when no policy says otherwise: relay_alias is reported for review. */
export const DEFAULT_POLICY_VERDICT: Readonly<Record<PolicyReasonCode, PolicyVerdict>> = {
  relay_alias: 'review',
};

export function isPolicyReason(reason: ReasonCode): reason is PolicyReasonCode {
  return (POLICY_REASONS as readonly ReasonCode[]).includes(reason);
}

const RANK: Readonly<Record<ReasonCode, number>> = Object.fromEntries(
  REASON_CODES.map((code, index) => [code, index]),
) as Record<ReasonCode, number>;

/** Reasons in the one fixed order of REASON_CODES (most severe first), duplicates dropped. */
export function sortReasons(reasons: Iterable<ReasonCode>): ReasonCode[] {
  return [...new Set(reasons)].sort((a, b) => RANK[a] - RANK[b]);
}
