// Reason codes of the email check (docs/api.md: Email checks, "Reasons order"). The array order
// IS the severity order: a result's `reasons` are listed in it, and the verdict is that of the
// first one. Everything else in the code base refers to these constants, never to string literals.

export const REASON_CODES = [
  'invalid_syntax',
  'domain_not_found',
  'no_mail_server',
  'disposable_domain',
  'typo_suspected',
  'role_account',
  'implicit_mx',
  'dns_unavailable',
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

export const Reason = {
  InvalidSyntax: 'invalid_syntax',
  DomainNotFound: 'domain_not_found',
  NoMailServer: 'no_mail_server',
  DisposableDomain: 'disposable_domain',
  TypoSuspected: 'typo_suspected',
  RoleAccount: 'role_account',
  ImplicitMx: 'implicit_mx',
  DnsUnavailable: 'dns_unavailable',
} as const satisfies Record<string, ReasonCode>;

/** Verdicts, least severe first. */
export const VERDICTS = ['accept', 'review', 'reject'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** The verdict each reason sets. */
export const REASON_VERDICT: Readonly<Record<ReasonCode, Verdict>> = {
  invalid_syntax: 'reject',
  domain_not_found: 'reject',
  no_mail_server: 'reject',
  disposable_domain: 'reject',
  typo_suspected: 'review',
  role_account: 'review',
  implicit_mx: 'review',
  dns_unavailable: 'review',
};

const RANK: Readonly<Record<ReasonCode, number>> = Object.fromEntries(
  REASON_CODES.map((code, index) => [code, index]),
) as Record<ReasonCode, number>;

/** Reasons in the one fixed order of REASON_CODES (most severe first), duplicates dropped. */
export function sortReasons(reasons: Iterable<ReasonCode>): ReasonCode[] {
  return [...new Set(reasons)].sort((a, b) => RANK[a] - RANK[b]);
}
