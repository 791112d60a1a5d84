import type { ReasonCode, Verdict } from '../email/reasons.js';
import type { RelayAliasPolicy } from '../email/rules.js';
import type { SecurityFlags } from '../security/classifier.js';

// The signup score (docs/api.md: Signup check, "Score"; the score's description in /docs lists the
// weights). Every weight and threshold appears here once; the handler, the schema and the tests refer
// to these constants.

/** Signup reason codes in weight order, heaviest first (docs/api.md: Signup check, "Score"). */
export const SIGNUP_REASONS = [
  'invalid_syntax',
  'blocked_by_account',
  'domain_not_found',
  'no_mail_server',
  'disposable_domain',
  'ip_tor',
  'ip_threat',
  'ip_vpn',
  'new_domain',
  'relay_alias',
  'ip_datacenter',
  'automated_user_agent',
  'typo_suspected',
  'role_account',
  'implicit_mx',
  'dns_unavailable',
  'ip_security_unavailable',
] as const;

export type SignupReason = (typeof SIGNUP_REASONS)[number];

/**
 * The weight of each reason. relay_alias has its weight under the account's `review` policy here; under
 * `reject` it weighs RELAY_ALIAS_REJECT_WEIGHT (signupWeights), so the signup verdict follows the
 * policy as the email verdict does (25 reaches review, 60 reject). Under `accept` it is never reported.
 */
export const SIGNUP_REASON_WEIGHTS: Readonly<Record<SignupReason, number>> = {
  invalid_syntax: 70,
  blocked_by_account: 60,
  domain_not_found: 60,
  no_mail_server: 60,
  disposable_domain: 60,
  ip_tor: 40,
  ip_threat: 40,
  ip_vpn: 25,
  new_domain: 25,
  relay_alias: 25,
  ip_datacenter: 20,
  automated_user_agent: 20,
  typo_suspected: 15,
  role_account: 10,
  implicit_mx: 10,
  dns_unavailable: 5,
  ip_security_unavailable: 0,
};

/** relay_alias's weight when the account's relayAliases policy is reject. */
export const RELAY_ALIAS_REJECT_WEIGHT = 60;

const REJECT_RELAY_WEIGHTS: Readonly<Record<SignupReason, number>> = Object.freeze({
  ...SIGNUP_REASON_WEIGHTS,
  relay_alias: RELAY_ALIAS_REJECT_WEIGHT,
});

/** The weights under an account's relayAliases policy (SIGNUP_REASON_WEIGHTS unless it is reject). */
export function signupWeights(
  relayAliases: RelayAliasPolicy = 'accept',
): Readonly<Record<SignupReason, number>> {
  return relayAliases === 'reject' ? REJECT_RELAY_WEIGHTS : SIGNUP_REASON_WEIGHTS;
}

/** The score is the sum of the weights, capped here. */
export const SCORE_MAX = 100;
/** `reject` at this score or more. */
export const REJECT_AT = 60;
/** `review` at this score or more (below REJECT_AT). */
export const REVIEW_AT = 25;
/** `new_domain` when the email domain was registered fewer than this many days ago. */
export const NEW_DOMAIN_DAYS = 30;

/** Reasons heaviest first under `weights`, equal weights in the order of SIGNUP_REASONS. */
function orderUnder(weights: Readonly<Record<SignupReason, number>>): readonly SignupReason[] {
  return SIGNUP_REASONS.map((reason, index) => ({ reason, index }))
    .sort((a, b) => weights[b.reason] - weights[a.reason] || a.index - b.index)
    .map((entry) => entry.reason);
}

/**
 * The one order of `reasons` in a signup result (docs/api.md: Signup check, "Reasons order"): heaviest
 * weight first, and among equal weights the order of SIGNUP_REASONS (so e.g. blocked_by_account,
 * domain_not_found, no_mail_server, disposable_domain at 60; ip_tor before ip_threat at 40; ip_vpn,
 * new_domain, relay_alias at 25; ip_datacenter before automated_user_agent at 20). SIGNUP_REASONS is
 * itself sorted by weight, so this is its own order. Under the relayAliases policy reject, relay_alias
 * weighs 60 and comes after disposable_domain (sortSignupReasons(reasons, 'reject')).
 */
export const SIGNUP_REASON_ORDER: readonly SignupReason[] = orderUnder(SIGNUP_REASON_WEIGHTS);

function rankOf(order: readonly SignupReason[]): Readonly<Record<SignupReason, number>> {
  return Object.fromEntries(order.map((reason, index) => [reason, index])) as Record<SignupReason, number>;
}

const RANK = rankOf(SIGNUP_REASON_ORDER);
const REJECT_RELAY_RANK = rankOf(orderUnder(REJECT_RELAY_WEIGHTS));

/** Reasons in SIGNUP_REASON_ORDER (or the order under the relayAliases policy), duplicates dropped. */
export function sortSignupReasons(
  reasons: Iterable<SignupReason>,
  relayAliases: RelayAliasPolicy = 'accept',
): SignupReason[] {
  const rank = relayAliases === 'reject' ? REJECT_RELAY_RANK : RANK;
  return [...new Set(reasons)].sort((a, b) => rank[a] - rank[b]);
}

export interface SignupSignals {
  /** `reasons` of the full email check result. */
  emailReasons: readonly ReasonCode[];
  /** The IP's security flags; null on plans without security data. */
  security: SecurityFlags | null;
  /** Age of the email domain in days from RDAP; null when unknown. */
  domainAgeDays: number | null;
  /** The supplied userAgent looks like a bot or script (user-agent.ts). */
  automatedUserAgent: boolean;
  /** The account's relayAliases policy (email rules); absent: accept, relay_alias never reported. */
  relayAliases?: RelayAliasPolicy;
}

export interface SignupScore {
  score: number;
  verdict: Verdict;
  reasons: SignupReason[];
}

/**
 * The reasons that apply. IP indicators come only from security data: on a plan without it the IP
 * contributes nothing but the informational ip_security_unavailable (weight 0), so the score is made
 * of the signals about the address itself (the email check and its domain's age) and of the caller's
 * own userAgent, never of IP data. ip_datacenter is added only when the address is not already
 * flagged as a VPN or a Tor exit (docs/api.md: Signup check), so one hosting-provider exit is not
 * counted twice.
 */
export function signupReasons(signals: SignupSignals): SignupReason[] {
  // Email reason codes are signup reasons under the same names (this assignment checks it).
  const reasons: SignupReason[] = [...signals.emailReasons];
  if (signals.domainAgeDays !== null && signals.domainAgeDays < NEW_DOMAIN_DAYS) reasons.push('new_domain');
  if (signals.automatedUserAgent) reasons.push('automated_user_agent');
  const security = signals.security;
  if (security === null) {
    reasons.push('ip_security_unavailable');
  } else {
    if (security.isTor) reasons.push('ip_tor');
    if (security.isThreat) reasons.push('ip_threat');
    if (security.isVpn) reasons.push('ip_vpn');
    if (security.isDatacenter && !security.isVpn && !security.isTor) reasons.push('ip_datacenter');
  }
  return sortSignupReasons(reasons, signals.relayAliases);
}

/** Sum of the weights (signupWeights of the account's relayAliases policy), capped at SCORE_MAX. */
export function scoreOf(reasons: Iterable<SignupReason>, relayAliases?: RelayAliasPolicy): number {
  const weights = signupWeights(relayAliases);
  let sum = 0;
  for (const reason of new Set(reasons)) sum += weights[reason];
  return Math.min(SCORE_MAX, sum);
}

/** reject at REJECT_AT or more, review at REVIEW_AT or more, else accept. */
export function verdictOfScore(score: number): Verdict {
  if (score >= REJECT_AT) return 'reject';
  if (score >= REVIEW_AT) return 'review';
  return 'accept';
}

export function scoreSignup(signals: SignupSignals): SignupScore {
  const reasons = signupReasons(signals);
  const score = scoreOf(reasons, signals.relayAliases);
  return { score, verdict: verdictOfScore(score), reasons };
}
