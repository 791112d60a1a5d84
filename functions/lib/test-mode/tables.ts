// The documented test data (docs/test-mode.md, and the API reference's "Test mode" section, which
// are generated from these tables): what test keys get for the documentation address ranges
// (RFC 5737, RFC 3849), the example e-mail addresses and the domain ages of the signup check. Data
// only, so the API reference can show it without loading the lookup's code.

import { NO_MATCH, type SecurityFlags } from '../security/classifier.js';

export interface TestNetwork {
  /** The documentation range, in CIDR notation. */
  prefix: string;
  /** Two addresses of the range, used in the docs and the tests. */
  examples: readonly [string, string];
  place: {
    country: string;
    region: string;
    regionCode: string;
    city: string;
    postalCode: string;
    latitude: number;
    longitude: number;
    accuracyRadiusKm: number;
    timezone: string;
  };
  /** Documentation AS numbers (RFC 5398). */
  network: { asn: number; asOrganization: string };
  security: SecurityFlags;
}

export const TEST_NETWORKS: readonly TestNetwork[] = [
  {
    prefix: '192.0.2.0/24',
    examples: ['192.0.2.1', '192.0.2.200'],
    place: {
      country: 'US',
      region: 'California',
      regionCode: 'US-CA',
      city: 'San Francisco',
      postalCode: '94107',
      latitude: 37.7749,
      longitude: -122.4194,
      accuracyRadiusKm: 20,
      timezone: 'America/Los_Angeles',
    },
    network: { asn: 64496, asOrganization: 'Example Network A (test)' },
    security: NO_MATCH,
  },
  {
    prefix: '198.51.100.0/24',
    examples: ['198.51.100.7', '198.51.100.250'],
    place: {
      country: 'DE',
      region: 'Berlin',
      regionCode: 'DE-BE',
      city: 'Berlin',
      postalCode: '10115',
      latitude: 52.52,
      longitude: 13.405,
      accuracyRadiusKm: 20,
      timezone: 'Europe/Berlin',
    },
    network: { asn: 64497, asOrganization: 'Example VPN B (test)' },
    security: { ...NO_MATCH, isVpn: true, isDatacenter: true },
  },
  {
    prefix: '203.0.113.0/24',
    examples: ['203.0.113.9', '203.0.113.77'],
    place: {
      country: 'GB',
      region: 'England',
      regionCode: 'GB-ENG',
      city: 'London',
      postalCode: 'EC1A 1BB',
      latitude: 51.5072,
      longitude: -0.1276,
      accuracyRadiusKm: 20,
      timezone: 'Europe/London',
    },
    network: { asn: 64498, asOrganization: 'Example Relay C (test)' },
    security: { ...NO_MATCH, isTor: true, isThreat: true },
  },
  {
    prefix: '2001:db8::/32',
    examples: ['2001:db8::1', '2001:db8:ffff::42'],
    place: {
      country: 'JP',
      region: 'Tokyo',
      regionCode: 'JP-13',
      city: 'Tokyo',
      postalCode: '100-0001',
      latitude: 35.6762,
      longitude: 139.6503,
      accuracyRadiusKm: 50,
      timezone: 'Asia/Tokyo',
    },
    network: { asn: 64499, asOrganization: 'Example Cloud D (test)' },
    security: { ...NO_MATCH, isDatacenter: true },
  },
];

/** What a documented address is given: a mail-server answer, or its domain on the disposable list. */
export type TestMailServer =
  | 'found'
  | 'implicit'
  | 'none'
  | 'null_mx'
  | 'no_domain'
  | 'unknown'
  | 'disposable';

export interface TestEmail {
  email: string;
  /** What the test checker gives it (email-answers.ts). */
  given: TestMailServer;
  /** What the answer shows, as the docs say it. */
  shows: string;
  mxStatus: 'found' | 'implicit' | 'none' | 'null_mx' | 'no_domain' | 'unknown';
  isDisposable: boolean;
  didYouMean: string | null;
  verdict: 'accept' | 'review' | 'reject';
  reasons: readonly string[];
}

/**
 * The lists test mode checks against: small and fixed, so that no answer of test mode changes when
 * the live lists do (the live disposable lists hold example.com and gmial.com, for one).
 */
export const TEST_EMAIL_LISTS = {
  disposable: ['mailinator.com', 'guerrillamail.com', '10minutemail.com'],
  free: ['gmail.com', 'googlemail.com', 'yahoo.com', 'outlook.com', 'hotmail.com', 'icloud.com', 'aol.com'],
  role: [
    'admin',
    'info',
    'support',
    'sales',
    'contact',
    'noreply',
    'no-reply',
    'postmaster',
    'abuse',
    'billing',
  ],
  relays: [
    ['privaterelay.appleid.com', 'Apple Hide My Email'],
    ['duck.com', 'DuckDuckGo Email Protection'],
    ['mozmail.com', 'Firefox Relay'],
  ] as [string, string][],
} as const;

export const TEST_EMAILS: readonly TestEmail[] = [
  {
    email: 'accept@example.com',
    given: 'found',
    shows: 'a clean address',
    mxStatus: 'found',
    isDisposable: false,
    didYouMean: null,
    verdict: 'accept',
    reasons: [],
  },
  {
    email: 'disposable@example.com',
    given: 'disposable',
    shows: "a disposable provider's address",
    mxStatus: 'found',
    isDisposable: true,
    didYouMean: null,
    verdict: 'reject',
    reasons: ['disposable_domain'],
  },
  {
    email: 'typo@gmial.com',
    given: 'found',
    shows: 'a misspelt provider, with the suggestion',
    mxStatus: 'found',
    isDisposable: false,
    didYouMean: 'typo@gmail.com',
    verdict: 'review',
    reasons: ['typo_suspected'],
  },
  {
    email: 'info@example.com',
    given: 'found',
    shows: 'a role account',
    mxStatus: 'found',
    isDisposable: false,
    didYouMean: null,
    verdict: 'review',
    reasons: ['role_account'],
  },
  {
    email: 'norecord@example.com',
    given: 'none',
    shows: 'a domain with no mail server',
    mxStatus: 'none',
    isDisposable: false,
    didYouMean: null,
    verdict: 'reject',
    reasons: ['no_mail_server'],
  },
  {
    email: 'nullmx@example.com',
    given: 'null_mx',
    shows: 'a domain that accepts no mail (null MX)',
    mxStatus: 'null_mx',
    isDisposable: false,
    didYouMean: null,
    verdict: 'reject',
    reasons: ['no_mail_server'],
  },
  {
    email: 'nodomain@example.com',
    given: 'no_domain',
    shows: 'a domain that does not exist',
    mxStatus: 'no_domain',
    isDisposable: false,
    didYouMean: null,
    verdict: 'reject',
    reasons: ['domain_not_found'],
  },
  {
    email: 'timeout@example.com',
    given: 'unknown',
    shows: 'a DNS lookup that timed out',
    mxStatus: 'unknown',
    isDisposable: false,
    didYouMean: null,
    verdict: 'review',
    reasons: ['dns_unavailable'],
  },
  {
    email: 'implicitmx@example.com',
    given: 'implicit',
    shows: 'a domain without MX records whose own address takes the mail (implicit MX)',
    mxStatus: 'implicit',
    isDisposable: false,
    didYouMean: null,
    verdict: 'review',
    reasons: ['implicit_mx'],
  },
];

/** The documented addresses (lowercase) and what each is given; any other address is given `found`. */
export const TEST_EMAIL_ANSWERS: ReadonlyMap<string, TestMailServer> = new Map(
  TEST_EMAILS.map((e) => [e.email, e.given]),
);

export interface TestDomainAge {
  /** A registered domain: an address at it or at any of its subdomains has its age, as live. */
  domain: string;
  /** Its registration: a date (ISO 8601), or a number of whole days before the call. */
  registered: { on: string } | { daysAgo: number };
  /** What it shows in a signup check, as the docs say it. */
  shows: string;
}

/**
 * The domain ages of the signup check in test mode (`emailDomainAgeDays`); every other domain's age
 * is unknown. One domain is under the `new_domain` threshold (signup/score.ts NEW_DOMAIN_DAYS), so
 * that test mode can give every signup reason a domain's age can.
 */
export const TEST_DOMAIN_AGES: readonly TestDomainAge[] = [
  { domain: 'example.com', registered: { on: '1995-08-14T04:00:00Z' }, shows: 'an established domain' },
  { domain: 'gmial.com', registered: { daysAgo: 30 }, shows: 'a domain a month old' },
  { domain: 'example.net', registered: { daysAgo: 7 }, shows: 'a domain registered a week ago' },
];
