import type { EmailChecker } from '../email/check.js';
import type { CompiledEmailRules } from '../email/rules.js';
import { parseAddress } from '../email/syntax.js';
import type { AccountGeofeed } from '../ip/account-geofeed.js';
import type { IpLocator } from '../ip/locator.js';
import type { ParsedIp } from '../ip/parse-ip.js';
import type { DomainAgeLookup } from './domain-age.js';
import type { SignupCheckResult } from './schema.js';
import { scoreSignup } from './score.js';
import { isAutomatedUserAgent } from './user-agent.js';

// The signup check (docs/api.md: Signup check): the full email check, the IP lookup and the email domain's
// age, run concurrently (the check takes as long as the slowest of them, not their sum), then
// scored. Pure apart from the three ports it is given.

export interface SignupCheckDeps {
  email: Pick<EmailChecker, 'check' | 'isFreeProvider'>;
  ip: IpLocator;
  domainAge: DomainAgeLookup;
}

export interface SignupCheckInput {
  email: string;
  ip: ParsedIp;
  /** Absent (undefined or null) is no signal; an empty string is. */
  userAgent?: string | null;
  /** The plan includes security data. */
  includeSecurity: boolean;
  /**
   * The calling account's compiled email rules (email/rules.ts); undefined for none. They change the
   * email result (blocked_by_account, relay_alias, allow) and relay_alias's weight (score.ts).
   */
  emailRules?: CompiledEmailRules;
  /** The calling account's own geofeed (ip/account-geofeed.ts); undefined for none. */
  geofeed?: AccountGeofeed;
}

export async function checkSignup(
  deps: SignupCheckDeps,
  input: SignupCheckInput,
): Promise<SignupCheckResult> {
  // The domain is known from the syntax alone, so its age is looked up while the email check waits
  // for DNS. emailDomainAgeDays is null for free consumer providers (their age says nothing about
  // the signup; docs/api.md: Signup check), so theirs is never looked up.
  const address = parseAddress(input.email);
  const ageAsked = address !== null && !deps.email.isFreeProvider(address.domain);
  const [email, ip, age] = await Promise.all([
    deps.email.check(input.email, input.emailRules),
    deps.ip.locate(input.ip, { includeSecurity: input.includeSecurity, geofeed: input.geofeed }),
    ageAsked ? deps.domainAge.ageDays(address.domain) : Promise.resolve(null),
  ]);
  const emailDomainAgeDays = email.syntaxValid && !email.isFreeProvider ? age : null;
  const security = input.includeSecurity ? (ip.security ?? null) : null;
  const { score, verdict, reasons } = scoreSignup({
    emailReasons: email.reasons,
    security,
    domainAgeDays: emailDomainAgeDays,
    automatedUserAgent: isAutomatedUserAgent(input.userAgent),
    ...(input.emailRules ? { relayAliases: input.emailRules.relayAliases } : {}),
  });
  return {
    email,
    ip: {
      ip: ip.ip,
      country: ip.country,
      locationSource: ip.locationSource,
      asn: ip.asn,
      asOrganization: ip.asOrganization,
      security,
    },
    emailDomainAgeDays,
    score,
    verdict,
    reasons,
  };
}
