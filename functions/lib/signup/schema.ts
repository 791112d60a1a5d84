import { EmailCheckResultSchema, VERDICTS } from '../email/index.js';
import { LocationSourceSchema } from '../ip/schema.js';
import { SecurityFlagsSchema } from '../security/classifier.js';
import * as z from '../zod.js';
import {
  NEW_DOMAIN_DAYS,
  REJECT_AT,
  RELAY_ALIAS_REJECT_WEIGHT,
  REVIEW_AT,
  SCORE_MAX,
  SIGNUP_REASON_WEIGHTS,
  SIGNUP_REASONS,
} from './score.js';

// The signup check result (docs/api.md: Signup check): the OpenAPI document is built from it and
// the tests check every response against it.

const weightTable = SIGNUP_REASONS.map((r) => `${r} ${SIGNUP_REASON_WEIGHTS[r]}`).join(', ');

export const SignupReasonSchema = z.enum(SIGNUP_REASONS);

export const SignupIpSchema = z.object({
  ip: z.string().check(z.describe('The supplied address, echoed back.')),
  country: z
    .nullable(z.string().check(z.length(2)))
    .check(z.describe('ISO 3166-1 alpha-2 country code; null when the address has no location.')),
  locationSource: LocationSourceSchema,
  asn: z
    .nullable(z.number().check(z.int()))
    .check(z.describe('Autonomous system number of the network; null when unknown.')),
  asOrganization: z
    .nullable(z.string())
    .check(z.describe('Organisation operating that autonomous system; null when unknown.')),
  security: z
    .nullable(SecurityFlagsSchema)
    .check(
      z.describe(
        'The five list-based indicators of the IP lookup (false means no match in the available data); ' +
          'null on plans without security data, where the reasons carry ip_security_unavailable.',
      ),
    ),
});

export const SignupCheckResultSchema = z.object({
  email: EmailCheckResultSchema.check(
    z.describe('The full email check result, as POST /v1/email/validate returns it.'),
  ),
  ip: SignupIpSchema.check(z.describe('Network facts of the supplied IP address.')),
  emailDomainAgeDays: z
    .nullable(z.number().check(z.int(), z.nonnegative()))
    .check(
      z.describe(
        'Whole days since the email domain (its registered domain, e.g. shop.co.uk for mail.shop.co.uk) was ' +
          "registered, from the registry's RDAP registration event. Null when unknown (no RDAP service for " +
          'the registry, not found, no answer in time), for well-known consumer providers (isFreeProvider) ' +
          'and for invalid addresses.',
      ),
    ),
  score: z
    .number()
    .check(
      z.int(),
      z.minimum(0),
      z.maximum(SCORE_MAX),
      z.describe(
        `Sum of the weights of reasons, capped at ${SCORE_MAX}. Weights: ${weightTable}. relay_alias ` +
          `weighs ${RELAY_ALIAS_REJECT_WEIGHT} instead when the account's relayAliases rule is reject.`,
      ),
    ),
  verdict: z
    .enum(VERDICTS)
    .check(
      z.describe(
        `reject when score is ${REJECT_AT} or more; review when ${REVIEW_AT} or more; otherwise accept.`,
      ),
    ),
  reasons: z
    .array(SignupReasonSchema)
    .check(
      z.describe(
        'Reasons that applied, heaviest weight first, equal weights in the order of the weight table. ' +
          'Email reason codes as in the email result (blocked_by_account and relay_alias from the ' +
          "account's email rules); ip_tor, ip_threat, ip_vpn from the security data; " +
          'ip_datacenter only when the IP is not flagged VPN or Tor; new_domain when emailDomainAgeDays < ' +
          `${NEW_DOMAIN_DAYS}; automated_user_agent when userAgent looks like a bot or script (an empty ` +
          'string does, an absent one does not); ip_security_unavailable (weight 0) on plans without ' +
          'security data, where no IP signal enters the score.',
      ),
    ),
});

export type SignupCheckResult = z.infer<typeof SignupCheckResultSchema>;
