import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Account, AccountStore, KeyRecord } from '../../../functions/lib/accounts/account.js';
import { generateApiKey, hashApiKey, isWellFormedKey } from '../../../functions/lib/accounts/api-key.js';
import { AUTH_MESSAGES } from '../../../functions/lib/accounts/auth-messages.js';
import { authenticate } from '../../../functions/lib/accounts/authenticate.js';
import { EmailCheckResultSchema } from '../../../functions/lib/email/schema.js';
import { LOOKUP_FIELDS } from '../../../functions/lib/ip/field-catalogs.js';
import { parseFields } from '../../../functions/lib/ip/fields.js';
import { IpData } from '../../../functions/lib/ip/ip-data.js';
import { createIpLookup, type IpLookup } from '../../../functions/lib/ip/lookup.js';
import { IP_DATA_FILES } from '../../../functions/lib/ip/manifest.js';
import { parseIp } from '../../../functions/lib/ip/parse-ip.js';
import { GeoResultSchema, IpLookupResultSchema } from '../../../functions/lib/ip/schema.js';
import { maskKey } from '../../../functions/lib/log/key-mask.js';
import { noMatchClassifier } from '../../../functions/lib/security/classifier.js';
import { checkSignup } from '../../../functions/lib/signup/check.js';
import { NEW_DOMAIN_DAYS } from '../../../functions/lib/signup/score.js';
import {
  createTestDomainAgeLookup,
  createTestEmailChecker,
} from '../../../functions/lib/test-mode/email-answers.js';
import {
  createTestIpLocator,
  createTestIpLookup,
  isTestNetwork,
  testHostname,
} from '../../../functions/lib/test-mode/ip-answers.js';
import { isTestPartition, liveAccountOf, testPartitionOf } from '../../../functions/lib/test-mode/mode.js';
import { TEST_DOMAIN_AGES, TEST_EMAILS, TEST_NETWORKS } from '../../../functions/lib/test-mode/tables.js';
import { routeByName } from '../../../functions/routes.js';
import { FIXTURES, makeFixtureDataDir } from '../ip/support/fixture-data.js';

// Test mode's pure parts (docs/test-mode.md): the key format, the test partition, the authorizer's
// principal for a test key, and the fixed IP and e-mail answers, checked against the documented
// tables they are generated from and against the live result schemas.

const ip = (text: string) => {
  const parsed = parseIp(text);
  if (!parsed) throw new Error(`${text} does not parse`);
  return parsed;
};
const NOW = new Date('2026-06-15T12:00:00Z');
const live: IpLookup = {
  lookup: async () => {
    throw new Error('the live lookup answered a test call');
  },
  geo: async () => {
    throw new Error('the live lookup answered a test call');
  },
  manifest: async () => [],
  dataVersion: () => 'live-version',
  ready: async () => ({}) as never,
};
const lookup = createTestIpLookup({ live, clock: { now: () => NOW } });

describe('test keys and the test partition', () => {
  test('test keys read ni_test_pub_ and ni_test_sec_, are well formed, and are masked by their own prefix', () => {
    const sec = generateApiKey('secret', 'test');
    const pub = generateApiKey('publishable', 'test');
    expect(sec).toMatch(/^ni_test_sec_[A-Za-z0-9_-]{32}$/);
    expect(pub).toMatch(/^ni_test_pub_[A-Za-z0-9_-]{32}$/);
    expect([sec, pub].every(isWellFormedKey)).toBe(true);
    expect(isWellFormedKey('ni_test_xyz_' + 'a'.repeat(32))).toBe(false);
    expect(maskKey(sec)).toBe(`ni_test_sec_…${sec.slice(-4)}`);
    // Short values never show themselves, whatever their prefix.
    for (const short of ['ni_test_sec_abcd', 'ni_test_sec_abcdefgh'])
      expect(maskKey(short)).not.toContain(short);
  });

  test('a partition is its account’s, and no live account id is one', () => {
    expect(testPartitionOf('acct_1')).toBe('acct_1~test');
    expect(testPartitionOf('acct_1~test')).toBe('acct_1~test');
    expect(isTestPartition('acct_1~test')).toBe(true);
    expect(isTestPartition('acct_1')).toBe(false);
    expect(liveAccountOf('acct_1~test')).toBe('acct_1');
    expect(liveAccountOf('acct_1')).toBe('acct_1');
  });

  const account: Account = {
    accountId: 'acct_1',
    plan: 'pro',
    email: null,
    createdAt: '2026-01-01T00:00:00Z',
    perMinute: 10,
    monthlyCap: 100,
    includesSecurity: true,
    customHostname: false,
    rulesVersion: 'r1',
  };
  const testKey = generateApiKey('secret', 'test');
  const liveKey = generateApiKey('secret');
  const record = (key: string, mode?: 'test'): KeyRecord => ({
    keyId: mode ? 'key_test' : 'key_live',
    keyHash: hashApiKey(key),
    accountId: 'acct_1',
    type: 'secret',
    origins: [],
    revoked: false,
    createdAt: '2026-01-01T00:00:00Z',
    ...(mode ? { mode } : {}),
  });
  const store: AccountStore = {
    getKeyByHash: async (h) => [record(testKey, 'test'), record(liveKey)].find((r) => r.keyHash === h),
    getAccount: async (id) => (id === 'acct_1' ? account : undefined),
  };
  const auth = (key: string, route = 'lookup-ip') =>
    authenticate(
      { route: routeByName(route as 'lookup-ip'), headers: { authorization: [`Bearer ${key}`] }, query: {} },
      store,
    );

  test('a test key’s principal is the test partition, in test mode, with the account’s limits and rules', async () => {
    const d = await auth(testKey);
    expect(d).toMatchObject({
      ok: true,
      principal: {
        accountId: 'acct_1~test',
        mode: 'test',
        perMinute: 10,
        monthlyCap: 100,
        rulesVersion: 'r1',
      },
    });
    const l = await auth(liveKey);
    expect(l.ok && l.principal.accountId).toBe('acct_1');
    expect(l.ok && 'mode' in l.principal).toBe(false);
  });

  test('a test key on a route that changes the account’s rules is 403 live_key_required; a live key passes', async () => {
    for (const route of [
      'account-travel-put',
      'account-email-rules-put',
      'account-geofeed-put',
      'account-geofeed-delete',
    ]) {
      expect(await auth(testKey, route)).toMatchObject({
        ok: false,
        status: 403,
        code: 'live_key_required',
        message: AUTH_MESSAGES.liveKeyRequired,
      });
      expect((await auth(liveKey, route)).ok).toBe(true);
    }
    // Reading them is allowed.
    expect((await auth(testKey, 'account-travel-get')).ok).toBe(true);
  });
});

describe('test-mode IP answers', () => {
  test('every documented range answers its documented place, network and flags, with the live schema', async () => {
    for (const net of TEST_NETWORKS) {
      for (const address of net.examples) {
        const r = await lookup.lookup(ip(address), { includeSecurity: true });
        expect(IpLookupResultSchema.safeParse(r).success).toBe(true);
        expect(r).toMatchObject({
          ip: address,
          found: true,
          ...net.place,
          asn: net.network.asn,
          asOrganization: net.network.asOrganization,
          locationSource: 'database',
          security: net.security,
        });
        expect(isTestNetwork(ip(address))).toBe(true);
      }
    }
  });

  test('the derived groups are the live code’s for the place (currency, EU, tax, sun)', async () => {
    const us = await lookup.lookup(ip('192.0.2.1'));
    expect(us).toMatchObject({
      continent: 'NA',
      isEUCountry: false,
      currency: { code: 'USD' },
      callingCode: '+1',
    });
    expect(us.sun).not.toBeNull();
    const de = await lookup.lookup(ip('198.51.100.7'));
    expect(de).toMatchObject({ continent: 'EU', isEUCountry: true, currency: { code: 'EUR' } });
    // No security without the plan's security data.
    expect('security' in de).toBe(false);
  });

  test('fields not asked for are not computed: no network, sun, holiday or security', async () => {
    const parsed = parseFields('country,city', LOOKUP_FIELDS);
    if (!parsed.ok) throw new Error(parsed.message);
    const r = await lookup.lookup(ip('203.0.113.9'), { includeSecurity: true, fields: parsed.selection });
    expect(r).toMatchObject({ country: 'GB', asn: null, sun: null, holiday: null });
    expect('security' in r).toBe(false);
  });

  test('outside the ranges a lookup is not found; /v1/geo answers the first range’s place for the caller', async () => {
    const r = await lookup.lookup(ip('8.8.8.8'), { includeSecurity: true });
    expect(r).toMatchObject({ found: false, country: null, asn: null, security: { isTor: false } });
    expect(IpLookupResultSchema.safeParse(r).success).toBe(true);
    const g = await lookup.geo(ip('8.8.8.8'), {});
    expect(GeoResultSchema.safeParse(g).success).toBe(true);
    expect(g).toMatchObject({ ip: '8.8.8.8', country: 'US', city: 'San Francisco', asn: 64496 });
    expect(await lookup.geo(ip('2001:db8::1'), {})).toMatchObject({ country: 'JP', city: 'Tokyo' });
    // The live data's version and report.
    expect(lookup.dataVersion()).toBe('live-version');
  });

  test('the locator agrees with the lookup; hostnames are fixed names in the ranges only', async () => {
    const locator = createTestIpLocator();
    for (const net of TEST_NETWORKS) {
      const full = await lookup.lookup(ip(net.examples[0]));
      const loc = await locator.locate(ip(net.examples[0]), { includeSecurity: true });
      for (const k of [
        'country',
        'region',
        'regionCode',
        'city',
        'latitude',
        'longitude',
        'asn',
        'found',
      ] as const)
        expect([k, loc[k]]).toEqual([k, full[k]]);
      expect(loc.security).toEqual(net.security);
    }
    expect((await locator.locate(ip('8.8.8.8'))).found).toBe(false);
    expect(testHostname(ip('192.0.2.1'))).toBe('test-192-0-2-1.example.net');
    expect(testHostname(ip('2001:db8::1'))).toBe('test-2001-db8-0-0-0-0-0-1.example.net');
    expect(testHostname(ip('8.8.8.8'))).toBeNull();
    expect(testHostname(ip('::ffff:8.8.8.8'))).toBeNull();
  });

  test('a test hostname is one name per address, however it is written, and a valid host name', () => {
    const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
    const valid = (name: string | null) =>
      name !== null && name.length <= 253 && name.split('.').every((label) => LABEL.test(label));
    // The ends of the ranges, where a shortened IPv6 form ends in "::".
    expect(testHostname(ip('2001:db8::'))).toBe('test-2001-db8-0-0-0-0-0-0.example.net');
    expect(testHostname(ip('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'))).toBe(
      'test-2001-db8-ffff-ffff-ffff-ffff-ffff-ffff.example.net',
    );
    // Every spelling of an address, and an IPv4-mapped address by the IPv4 address it is looked up as.
    for (const spellings of [
      ['2001:db8::1', '2001:DB8:0:0:0:0:0:1', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8:0::0:1'],
      ['192.0.2.1', '::ffff:192.0.2.1', '::FFFF:c000:201', '0:0:0:0:0:ffff:192.0.2.1'],
      ['203.0.113.77', '::ffff:203.0.113.77'],
    ]) {
      const names = new Set(spellings.map((s) => testHostname(ip(s))));
      expect([...names]).toHaveLength(1);
    }
    fc.assert(
      fc.property(
        fc.constantFrom(...TEST_NETWORKS),
        fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }),
        fc.boolean(),
        (net, random, mapped) => {
          const [base] = net.examples;
          const parsed = ip(base);
          let address: string;
          if (parsed.lookupFamily === 4) {
            const quad = [...parsed.bytes.slice(0, 3), random[0]! & 0xff].join('.');
            address = mapped ? `::ffff:${quad}` : quad;
          } else {
            address = ['2001', 'db8', ...random.slice(2).map((g) => g.toString(16))].join(':');
          }
          const name = testHostname(ip(address));
          expect(valid(name)).toBe(true);
          expect(name).toMatch(/^test-[0-9a-f-]+\.example\.net$/);
          expect(testHostname(ip(ip(address).canonical))).toBe(name);
        },
      ),
    );
  });
});

describe('test-mode IP answers and the live data version', () => {
  // X-Data-Version is the instance's live IP data version (runtime/ip.ts dataVersionHeader), null
  // until that data is opened. A test answer opens it as a live answer does, so that a container
  // serving test calls only names the live version too (docs/test-mode.md: "still describe the live
  // data"), and says what a live call says when there is none.
  const VERSION = '20261127T101500Z-3f9c2a7b5d1e';
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ dir, cleanup } = await makeFixtureDataDir());
    // Only the version matters here: five instances each opening DB-IP's 134 MB took 7 s, so the
    // location is the committed MaxMind-schema test database.
    await symlink(join(FIXTURES, 'mmdb/City-Test.mmdb'), join(dir, IP_DATA_FILES.location));
    const manifest = join(dir, IP_DATA_FILES.manifest);
    const datasets = JSON.parse(await readFile(manifest, 'utf8')) as unknown[];
    const location = {
      ...{ name: 'City-Test', version: '1', licence: 'CC-BY-SA-4.0', source: 'test', count: 1 },
      ...{ role: 'location', schema: 'maxmind-city', files: [IP_DATA_FILES.location] },
    };
    await writeFile(manifest, JSON.stringify({ version: VERSION, datasets: [...datasets, location] }));
  });
  afterAll(async () => cleanup());

  const clock = { now: () => NOW };
  const liveOver = (at: string) =>
    createIpLookup({ data: new IpData(at, { clock }), security: noMatchClassifier, clock });

  test('the first test call of an instance names the live version, on the lookups and /v1/geo', async () => {
    // What a live call reports, on an instance of its own.
    const liveOnly = liveOver(dir);
    await liveOnly.lookup(ip('192.0.2.1'));
    expect(liveOnly.dataVersion()).toBe(VERSION);

    for (const call of [
      (l: IpLookup) => l.lookup(ip('192.0.2.1')),
      (l: IpLookup) => l.lookup(ip('8.8.8.8')),
      (l: IpLookup) => l.geo(ip('2001:db8::1'), {}),
      (l: IpLookup) => l.geo(ip('8.8.8.8'), {}),
    ]) {
      const liveHere = liveOver(dir);
      const testHere = createTestIpLookup({ live: liveHere, clock });
      expect(testHere.dataVersion()).toBeNull();
      await call(testHere);
      expect([testHere.dataVersion(), liveHere.dataVersion()]).toEqual([VERSION, VERSION]);
    }
  });

  test('without live data the test answer is still given, and the version is what a live call reports', async () => {
    const missing = '/nonexistent/netintel-ip-data';
    const liveOnly = liveOver(missing);
    expect((await liveOnly.lookup(ip('192.0.2.1'))).found).toBe(false);
    const testHere = createTestIpLookup({ live: liveOver(missing), clock });
    expect((await testHere.lookup(ip('192.0.2.1'))).found).toBe(true);
    expect((await testHere.geo(ip('8.8.8.8'), {})).country).toBe('US');
    expect(testHere.dataVersion()).toBe(liveOnly.dataVersion());
    expect(testHere.dataVersion()).toBeNull();
  });
});

describe('test-mode e-mail answers', () => {
  const checker = createTestEmailChecker();

  test('every documented address gives its documented answer, whatever its case', async () => {
    for (const e of TEST_EMAILS) {
      for (const written of [e.email, ` ${e.email.toUpperCase()} `]) {
        const r = await checker.check(written);
        expect(EmailCheckResultSchema.safeParse(r).success).toBe(true);
        expect([e.email, r.mx?.status, r.isDisposable, r.didYouMean, r.verdict, r.reasons]).toEqual([
          e.email,
          e.mxStatus,
          e.isDisposable,
          e.didYouMean,
          e.verdict,
          e.reasons,
        ]);
      }
    }
  });

  test('checkMany is check per address, in order; the reserved names do not exist', async () => {
    const emails = [
      ...TEST_EMAILS.map((e) => e.email),
      'jane@gmail.com',
      'bob@site.test',
      'x@mailinator.com',
    ];
    const many = await checker.checkMany(emails);
    expect(many).toEqual(await Promise.all(emails.map((e) => checker.check(e))));
    expect(many.at(-3)).toMatchObject({
      verdict: 'accept',
      isFreeProvider: true,
      mx: { status: 'found', host: 'mx.gmail.com' },
    });
    expect(many.at(-2)?.mx?.status).toBe('no_domain');
    expect(many.at(-1)).toMatchObject({ isDisposable: true, verdict: 'reject' });
  });

  test('domain ages are fixed, never asked of RDAP', async () => {
    const ages = createTestDomainAgeLookup(() => NOW);
    expect(await ages.ageDays('example.com')).toBe(
      Math.floor((NOW.getTime() - Date.parse('1995-08-14T04:00:00Z')) / 86_400_000),
    );
    expect(await ages.ageDays('gmial.com')).toBe(30);
    expect(await ages.ageDays('anything.example.org')).toBeNull();
    expect(await ages.ageDays('com')).toBeNull();
  });

  test('a domain has its registered domain’s age, as live: a subdomain of a documented domain too', async () => {
    const ages = createTestDomainAgeLookup(() => NOW);
    for (const { domain } of TEST_DOMAIN_AGES) {
      const own = await ages.ageDays(domain);
      expect(own).not.toBeNull();
      for (const sub of [`mail.${domain}`, `a.b.${domain}`])
        expect([sub, await ages.ageDays(sub)]).toEqual([sub, own]);
    }
    // Not a subdomain: a name that only ends like one.
    expect(await ages.ageDays('notexample.com')).toBeNull();
  });

  test('a signup check in test mode can give new_domain: an address at the documented new domain', async () => {
    const deps = {
      email: createTestEmailChecker(),
      ip: createTestIpLocator(),
      domainAge: createTestDomainAgeLookup(() => NOW),
    };
    const signup = (email: string) =>
      checkSignup(deps, { email, ip: ip(TEST_NETWORKS[0]!.examples[0]), includeSecurity: true });
    const fresh = TEST_DOMAIN_AGES.filter(
      (d) => 'daysAgo' in d.registered && d.registered.daysAgo < NEW_DOMAIN_DAYS,
    );
    expect(fresh.map((d) => d.domain)).toEqual(['example.net']);
    for (const email of ['new@example.net', 'new@mail.example.net']) {
      const r = await signup(email);
      expect([email, r.emailDomainAgeDays, r.verdict, r.reasons]).toEqual([
        email,
        7,
        'review',
        ['new_domain'],
      ]);
    }
    // The documented fixtures keep their answers: gmial.com is 30 days old, not new.
    const typo = await signup('typo@gmial.com');
    expect([typo.emailDomainAgeDays, typo.reasons]).toEqual([30, ['typo_suspected']]);
    expect((await signup('accept@example.com')).reasons).toEqual([]);
  });
});
