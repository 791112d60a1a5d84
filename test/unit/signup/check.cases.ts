import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DnsLookup, MxRecord, MxResolver } from '../../../functions/lib/dns/mx-resolver.js';
import { createEmailChecker, type EmailChecker } from '../../../functions/lib/email/check.js';
import { compileEmailRules, EmailRulesSchema } from '../../../functions/lib/email/rules.js';
import { IpData } from '../../../functions/lib/ip/ip-data.js';
import { createIpLocator, type IpLocator } from '../../../functions/lib/ip/locator.js';
import { parseIp } from '../../../functions/lib/ip/parse-ip.js';
import { compileRanges, type LabelledRange } from '../../../functions/lib/security/compile.js';
import type { SecurityFlag } from '../../../functions/lib/security/flags.js';
import { parseCidr } from '../../../functions/lib/security/ip-range.js';
import { ListSecurityClassifier } from '../../../functions/lib/security/list-classifier.js';
import { encodeRangeTable, RangeTable } from '../../../functions/lib/security/range-table.js';
import { checkSignup, type SignupCheckDeps } from '../../../functions/lib/signup/check.js';
import {
  createDomainAgeLookup,
  InMemoryDomainAgeCache,
  parseRdapBootstrap,
} from '../../../functions/lib/signup/domain-age.js';
import { SignupCheckResultSchema } from '../../../functions/lib/signup/schema.js';
import { daysAgo, type RdapServer, startRdapServer } from '../../support/rdap-server.js';
import { fixtureLists, ZoneResolver } from '../email/support/zone-resolver.js';
import { makeFixtureDataDir } from '../ip/support/fixture-data.js';

// The signup use case with real parts: the email checker on fixture lists and a fixture DNS zone,
// the IP lookup on the DB-IP files with a security table compiled from fixture ranges, and the
// RDAP client against a loopback RDAP server that answers after DELAY_MS.

const DELAY_MS = 250;

/** The DNS port answering from a zone table after a delay (a fake of the port, as ZoneResolver is). */
class DelayedResolver implements MxResolver {
  constructor(
    private readonly inner: MxResolver,
    private readonly delayMs: number,
  ) {}
  private later<T>(p: Promise<T>): Promise<T> {
    return new Promise((resolve) => setTimeout(() => resolve(p), this.delayMs));
  }
  resolveMx(domain: string): Promise<DnsLookup<MxRecord>> {
    return this.later(this.inner.resolveMx(domain));
  }
  resolveA(domain: string): Promise<DnsLookup<string>> {
    return this.later(this.inner.resolveA(domain));
  }
  resolveAaaa(domain: string): Promise<DnsLookup<string>> {
    return this.later(this.inner.resolveAaaa(domain));
  }
}

function labelled(cidr: string, flag: SecurityFlag): LabelledRange {
  const range = parseCidr(cidr);
  if (range === null) throw new Error(cidr);
  return { ...range, flag };
}

const ip = (text: string) => parseIp(text)!;

const TOR = '193.99.144.80';
const HOSTING_VPN = '81.2.69.142';
const HOSTING = '212.58.244.20';
const CLEAN = '8.8.8.8';

let rdap: RdapServer;
let email: EmailChecker;
let ipLocator: IpLocator;
let cleanup: () => Promise<void>;

describe('check', () => {
  beforeAll(async () => {
    rdap = await startRdapServer({
      tlds: ['example', 'com'],
      delayMs: DELAY_MS,
      answer: (domain) => {
        if (domain === 'fresh.example') return { registered: daysAgo(3) };
        if (domain === 'gmail.com') return { registered: '1995-08-13T04:00:00Z' };
        if (domain.endsWith('.example')) return { registered: '2012-01-01T00:00:00Z' };
        return 'not_found';
      },
    });
    email = createEmailChecker({
      lists: await fixtureLists(),
      resolver: new DelayedResolver(new ZoneResolver(), DELAY_MS),
      dnsBudgetMs: 2000,
    });
    const data = await makeFixtureDataDir();
    cleanup = data.cleanup;
    const table = compileRanges([
      labelled(`${TOR}/32`, 'isTor'),
      labelled(`${TOR}/32`, 'isDatacenter'),
      labelled(`${HOSTING_VPN}/32`, 'isVpn'),
      labelled(`${HOSTING_VPN}/32`, 'isDatacenter'),
      labelled(`${HOSTING}/32`, 'isDatacenter'),
    ]);
    const security = new ListSecurityClassifier(
      new RangeTable(encodeRangeTable({ version: 'test', ...table })),
    );
    ipLocator = createIpLocator({ data: new IpData(data.dir), security });
    // Opens the data files and the loopback connection once, before the tests.
    await checkSignup(deps(), { email: 'warm@warm-up.example', ip: ip(CLEAN), includeSecurity: true });
  });
  afterAll(async () => {
    await rdap.close();
    await cleanup();
  });

  /** A promise the test opens by hand. */
  function opening(): { opened: Promise<void>; open: () => void } {
    let open = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    return { opened, open };
  }

  function deps(): SignupCheckDeps {
    const bootstrap = parseRdapBootstrap(rdap.bootstrap());
    return {
      email,
      ip: ipLocator,
      domainAge: createDomainAgeLookup({
        bootstrap: async () => bootstrap,
        fetch: (url, init) => fetch(url, init),
        cache: new InMemoryDomainAgeCache({ now: () => new Date() }),
        clock: { now: () => new Date() },
        timeoutMs: 2000,
      }),
    };
  }

  describe('checkSignup', () => {
    test('the email check, IP lookup and domain age run concurrently, not one after another', async () => {
      // The DNS lookup answers only once the RDAP query has started, and the RDAP query is sent only
      // once the DNS lookup has started: run one after the other, the first would wait until its
      // timeout and its field would come back empty. No clock is read.
      const dnsStarted = opening();
      const rdapStarted = opening();
      const zones = new ZoneResolver();
      const afterRdap =
        <T>(lookup: (domain: string) => Promise<T>) =>
        async (domain: string): Promise<T> => {
          dnsStarted.open();
          await rdapStarted.opened;
          return lookup(domain);
        };
      const gatedEmail = createEmailChecker({
        lists: await fixtureLists(),
        resolver: {
          resolveMx: afterRdap((d) => zones.resolveMx(d)),
          resolveA: afterRdap((d) => zones.resolveA(d)),
          resolveAaaa: afterRdap((d) => zones.resolveAaaa(d)),
        },
        dnsBudgetMs: 2000,
      });
      const bootstrap = parseRdapBootstrap(rdap.bootstrap());
      const result = await checkSignup(
        {
          ...deps(),
          email: gatedEmail,
          domainAge: createDomainAgeLookup({
            bootstrap: async () => bootstrap,
            fetch: async (url, init) => {
              rdapStarted.open();
              await dnsStarted.opened;
              return fetch(url, init);
            },
            cache: new InMemoryDomainAgeCache({ now: () => new Date() }),
            clock: { now: () => new Date() },
            timeoutMs: 2000,
          }),
        },
        { email: 'jane@overlap.example', ip: ip(CLEAN), includeSecurity: true },
      );
      expect(result.emailDomainAgeDays).toBeGreaterThan(4000);
      expect(result.email.mx?.status).toBe('found');
    });

    test('a clean signup: full email result, IP facts with security, accept', async () => {
      const result = await checkSignup(deps(), {
        email: 'Jane.Doe@Shop.Example',
        ip: ip(CLEAN),
        userAgent:
          'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
        includeSecurity: true,
      });
      expect(SignupCheckResultSchema.parse(result)).toEqual(result);
      expect(result).toMatchObject({
        email: { email: 'Jane.Doe@Shop.Example', domain: 'shop.example', verdict: 'accept' },
        ip: {
          ip: CLEAN,
          country: 'US',
          security: {
            isTor: false,
            isVpn: false,
            isDatacenter: false,
            isThreat: false,
            isSanctionedNetwork: false,
          },
        },
        score: 0,
        verdict: 'accept',
        reasons: [],
      });
      expect(Object.keys(result.ip).sort()).toEqual([
        'asOrganization',
        'asn',
        'country',
        'ip',
        'locationSource',
        'security',
      ]);
    });

    test('a domain registered 3 days ago is new_domain (25, review)', async () => {
      const result = await checkSignup(deps(), {
        email: 'a@fresh.example',
        ip: ip(CLEAN),
        includeSecurity: true,
      });
      expect(result).toMatchObject({
        emailDomainAgeDays: 3,
        score: 25,
        verdict: 'review',
        reasons: ['new_domain'],
      });
    });

    test('a well-known consumer provider has no domain age, and the registry is not asked', async () => {
      const before = rdap.total();
      const result = await checkSignup(deps(), {
        email: 'someone@gmail.com',
        ip: ip(CLEAN),
        includeSecurity: true,
      });
      expect(result.email.isFreeProvider).toBe(true);
      expect(result.emailDomainAgeDays).toBeNull();
      expect(rdap.total()).toBe(before);
    });

    test('an invalid address is scored, not refused, and its domain is never looked up', async () => {
      const before = rdap.total();
      const result = await checkSignup(deps(), {
        email: 'not an address',
        ip: ip(CLEAN),
        includeSecurity: true,
      });
      expect(result).toMatchObject({
        emailDomainAgeDays: null,
        score: 70,
        verdict: 'reject',
        reasons: ['invalid_syntax'],
      });
      expect(rdap.total()).toBe(before);
    });

    test('a Tor exit scores ip_tor, not also ip_datacenter; invalid syntax + Tor is capped at 100', async () => {
      const tor = await checkSignup(deps(), { email: 'a@shop.example', ip: ip(TOR), includeSecurity: true });
      expect(tor).toMatchObject({ score: 40, verdict: 'review', reasons: ['ip_tor'] });
      const both = await checkSignup(deps(), { email: 'bad@@x', ip: ip(TOR), includeSecurity: true });
      expect(both).toMatchObject({ score: 100, verdict: 'reject', reasons: ['invalid_syntax', 'ip_tor'] });
    });

    test('a VPN in a hosting range is ip_vpn only; a hosting address alone is ip_datacenter', async () => {
      const vpn = await checkSignup(deps(), {
        email: 'a@shop.example',
        ip: ip(HOSTING_VPN),
        includeSecurity: true,
      });
      expect(vpn.reasons).toEqual(['ip_vpn']);
      const dc = await checkSignup(deps(), {
        email: 'a@shop.example',
        ip: ip(HOSTING),
        includeSecurity: true,
      });
      expect(dc).toMatchObject({ score: 20, verdict: 'accept', reasons: ['ip_datacenter'] });
    });

    test('on a plan without security data: security null, ip_security_unavailable, email signals only', async () => {
      const result = await checkSignup(deps(), {
        email: 'admin@shop.example',
        ip: ip(TOR),
        userAgent: undefined,
        includeSecurity: false,
      });
      expect(result.ip.security).toBeNull();
      expect(result).toMatchObject({
        score: 10,
        verdict: 'accept',
        reasons: ['role_account', 'ip_security_unavailable'],
      });
    });

    test('an automated userAgent adds automated_user_agent; an empty one counts, an absent one does not', async () => {
      const base = { email: 'a@shop.example', ip: ip(CLEAN), includeSecurity: true };
      expect((await checkSignup(deps(), { ...base, userAgent: 'python-requests/2.31' })).reasons).toEqual([
        'automated_user_agent',
      ]);
      expect((await checkSignup(deps(), { ...base, userAgent: '' })).score).toBe(20);
      expect((await checkSignup(deps(), { ...base })).score).toBe(0);
      expect((await checkSignup(deps(), { ...base, userAgent: null })).score).toBe(0);
    });

    describe("the account's email rules", () => {
      /** The fixture lists with one relay domain, answered without delay. */
      async function relayDeps(): Promise<SignupCheckDeps> {
        const lists = await fixtureLists();
        return {
          ...deps(),
          email: createEmailChecker({
            lists: { ...lists, relays: new Map([['mozmail.com', 'Firefox Relay']]) },
            resolver: new ZoneResolver(),
          }),
        };
      }
      const rules = (input: unknown) => compileEmailRules(EmailRulesSchema.parse(input));
      const base = { email: 'x.y@mozmail.com', ip: ip(CLEAN), includeSecurity: true };

      test('without rules a relay alias is reported and accepted, as before', async () => {
        const result = await checkSignup(await relayDeps(), base);
        expect(result.email).toMatchObject({
          isRelayAlias: true,
          relayProvider: 'Firefox Relay',
          reasons: [],
        });
        expect(result).toMatchObject({ score: 0, verdict: 'accept', reasons: [] });
      });

      test('relayAliases review: relay_alias weighs 25 (review); reject: 60 (reject)', async () => {
        const review = await checkSignup(await relayDeps(), {
          ...base,
          emailRules: rules({ relayAliases: 'review' }),
        });
        expect(SignupCheckResultSchema.parse(review)).toEqual(review);
        expect(review).toMatchObject({ score: 25, verdict: 'review', reasons: ['relay_alias'] });
        expect(review.email.verdict).toBe('review');
        const reject = await checkSignup(await relayDeps(), {
          ...base,
          emailRules: rules({ relayAliases: 'reject' }),
        });
        expect(reject).toMatchObject({ score: 60, verdict: 'reject', reasons: ['relay_alias'] });
        expect(reject.email.verdict).toBe('reject');
      });

      test('a blocked domain is blocked_by_account (60, reject)', async () => {
        const result = await checkSignup(await relayDeps(), {
          email: 'a@shop.example',
          ip: ip(CLEAN),
          includeSecurity: true,
          emailRules: rules({ block: { domains: ['shop.example'] } }),
        });
        expect(result).toMatchObject({ score: 60, verdict: 'reject', reasons: ['blocked_by_account'] });
        expect(result.email).toMatchObject({ verdict: 'reject', reasons: ['blocked_by_account'] });
      });
    });
  });
});
