import { JANE_DOE_GMAIL } from '../email-batch/examples.js';
import { MAILINATOR } from '../email-validate/examples.js';
import { LONDON_VISITOR } from '../geo/examples.js';
import type { RouteExample } from '../lib/http/contract.js';
import { GOOGLE_DNS } from '../lookup-ip/examples.js';

// Real exchanges with signup-check (see RouteExample): test/integration/docs.cases.ts replays each one.
// The email and IP parts are what email-validate and the IP lookup answer for the same inputs.

/** The network facts of a signup check: six fields of the IP lookup (lib/signup/check.ts). */
function networkFacts({
  ip,
  country,
  locationSource,
  asn,
  asOrganization,
  security,
}: typeof GOOGLE_DNS | typeof LONDON_VISITOR) {
  // The geo example's location is the edge's; the signup check locates the address itself.
  return {
    ip,
    country,
    locationSource: locationSource === 'edge' ? 'database' : locationSource,
    asn,
    asOrganization,
    security,
  };
}

export const examples: Record<string, RouteExample> = {
  risky: {
    summary: 'A disposable address from a data centre, sent by a script',
    body: {
      email: 'someone@mailinator.com',
      ip: '8.8.8.8',
      userAgent: 'curl/8.4.0',
    },
    response: {
      email: MAILINATOR,
      ip: networkFacts(GOOGLE_DNS),
      emailDomainAgeDays: 8813,
      score: 100,
      verdict: 'reject',
      reasons: ['disposable_domain', 'ip_datacenter', 'automated_user_agent'],
    },
  },
  genuine: {
    summary: 'A Gmail address from a London ISP in Safari',
    body: {
      email: 'jane.doe@gmail.com',
      ip: '81.2.69.142',
      userAgent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
    },
    response: {
      email: JANE_DOE_GMAIL,
      ip: networkFacts(LONDON_VISITOR),
      emailDomainAgeDays: null,
      score: 0,
      verdict: 'accept',
      reasons: [],
    },
  },
};
