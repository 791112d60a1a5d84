import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import {
  GeoResultSchema,
  IpLookupBatchItemSchema,
  IpLookupResultSchema,
} from '../../functions/lib/ip/schema.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// Known answers come from the pinned DB-IP Lite and ASN packages.
let stack: TestStack;
const ORIGIN_SECRET = 'test-origin-secret-0123456789';

describe('ip', () => {
  beforeAll(async () => {
    process.env.ORIGIN_SECRET = ORIGIN_SECRET;
    process.env.DNS_SERVERS = '127.0.0.1:9';
    process.env.REVERSE_DNS_TIMEOUT_MS = '300';
    stack = await startTestStack({ trustForwardedFor: true });
  });
  afterAll(async () => {
    await stack.close();
    delete process.env.ORIGIN_SECRET;
    delete process.env.DNS_SERVERS;
    delete process.env.REVERSE_DNS_TIMEOUT_MS;
  });

  const lookup = (ip: string, query = '', headers = stack.secret()) =>
    stack.call('GET', `/v1/lookup/${ip}${query}`, { headers });
  const batch = (body: unknown) => stack.call('POST', '/v1/lookup', { headers: stack.secret(), body });

  async function errorCode(res: Response): Promise<string> {
    return ((await res.json()) as { error: string }).error;
  }

  describe('GET /v1/lookup/{ip}', () => {
    test('a public resolver is found with country, network and every derived group', async () => {
      const res = await lookup('8.8.8.8');
      expect(res.status).toBe(200);
      const body = IpLookupResultSchema.parse(await res.json());
      expect(body).toMatchObject({
        ip: '8.8.8.8',
        found: true,
        country: 'US',
        asn: 15169,
        continent: 'NA',
        isEUCountry: false,
        callingCode: '+1',
        userAgent: null,
      });
      expect(body.currency).toEqual({ code: 'USD', name: 'US Dollar', symbol: '$' });
      expect(body.security).toEqual({
        isTor: false,
        isVpn: false,
        isDatacenter: expect.any(Boolean),
        isThreat: false,
        isSanctionedNetwork: false,
      });
      expect(body).not.toHaveProperty('hostname');
    });

    test('IPv6, compressed and IPv4-mapped forms are accepted; the address is echoed as supplied', async () => {
      const v6 = IpLookupResultSchema.parse(await (await lookup('2001:4860:4860::8888')).json());
      expect(v6).toMatchObject({ ip: '2001:4860:4860::8888', found: true, asn: 15169 });
      expect(v6.country).toMatch(/^[A-Z]{2}$/); // DB-IP Lite places it in CA; the point is the IPv6 file is used
      const mapped = IpLookupResultSchema.parse(await (await lookup('::ffff:8.8.8.8')).json());
      const plain = IpLookupResultSchema.parse(await (await lookup('8.8.8.8')).json());
      expect(mapped.ip).toBe('::ffff:8.8.8.8');
      expect({ ...mapped, ip: '', sun: null, holiday: null }).toEqual({
        ...plain,
        ip: '',
        sun: null,
        holiday: null,
      });
    });

    test('an EU address resolves region, timezone and EU context', async () => {
      const body = IpLookupResultSchema.parse(await (await lookup('193.99.144.80')).json()); // heise.de, Germany
      expect(body).toMatchObject({
        found: true,
        country: 'DE',
        isEUCountry: true,
        continent: 'EU',
        callingCode: '+49',
      });
      expect(body.timezone).toBe('Europe/Berlin');
      expect(body.currency?.code).toBe('EUR');
      expect(body.compliance?.gdpr).toBe(true);
      expect(body.tax?.type).toBe('VAT');
    });

    test('private, reserved and loopback addresses are found:false with null location, not an error', async () => {
      for (const ip of [
        '10.0.0.1',
        '192.168.1.1',
        '127.0.0.1',
        '100.64.0.1',
        '192.0.2.1',
        '::1',
        'fe80::1',
        '2001:db8::1',
        '0.0.0.0',
      ]) {
        const res = await lookup(ip);
        expect(res.status).toBe(200);
        const body = IpLookupResultSchema.parse(await res.json());
        expect(body).toMatchObject({
          ip,
          found: false,
          country: null,
          city: null,
          latitude: null,
          asn: null,
          timezone: null,
        });
      }
    });

    test('every malformed form is 400 invalid_ip', async () => {
      for (const bad of [
        '01.2.3.4',
        '1.2.3',
        '1.2.3.4.5',
        '256.1.1.1',
        'fe80::1%25eth0',
        '1.2.3.0%2F24',
        '1.2.3.4-1.2.3.5',
        'example.com',
        '%201.2.3.4',
        '%5B%3A%3A1%5D',
        '1.2.3.4:80',
        'x'.repeat(300),
        '1.2.3.4%00',
      ]) {
        const res = await lookup(bad);
        expect(res.status).toBe(400);
        expect(await errorCode(res)).toBe('invalid_ip');
      }
    });

    test('?userAgent= is echoed; ?include=hostname adds a hostname (null when reverse DNS fails); other include values are 400', async () => {
      const ua = IpLookupResultSchema.parse(
        await (await lookup('8.8.8.8', '?userAgent=Mozilla%2F5.0%20Test')).json(),
      );
      expect(ua.userAgent).toBe('Mozilla/5.0 Test');
      const withHost = (await (await lookup('8.8.8.8', '?include=hostname')).json()) as { hostname: unknown };
      expect(withHost).toHaveProperty('hostname', null);
      const bad = await lookup('8.8.8.8', '?include=everything');
      expect(bad.status).toBe(400);
      expect(await errorCode(bad)).toBe('invalid_query');
    });

    test('security is omitted on plans without security data', async () => {
      const account = await accountStore(stack.services).createAccount('free', {});
      const key = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
      const body = (await (
        await lookup('8.8.8.8', '', { Authorization: `Bearer ${key.key}` })
      ).json()) as Record<string, unknown>;
      expect(body).not.toHaveProperty('security');
      expect(body.found).toBe(true);
    });
  });

  describe('POST /v1/lookup', () => {
    test('results in submission order, duplicates kept, no userAgent or hostname', async () => {
      const ips = ['1.1.1.1', '10.0.0.1', '8.8.8.8', '1.1.1.1'];
      const res = await batch({ ips });
      expect(res.status).toBe(200);
      const { results } = (await res.json()) as { results: Record<string, unknown>[] };
      expect(results.map((r) => r.ip)).toEqual(ips);
      for (const r of results) {
        IpLookupBatchItemSchema.parse(r);
        expect(r).not.toHaveProperty('userAgent');
        expect(r).not.toHaveProperty('hostname');
      }
      expect(results[1]).toMatchObject({ found: false, country: null });
    });

    test('1 and 100 items are accepted; 0 and 101 are refused', async () => {
      expect((await batch({ ips: ['8.8.8.8'] })).status).toBe(200);
      expect((await batch({ ips: Array.from({ length: 100 }, (_, i) => `8.8.${i}.8`) })).status).toBe(200);
      const empty = await batch({ ips: [] });
      expect([empty.status, await errorCode(empty)]).toEqual([400, 'empty_batch']);
      const big = await batch({ ips: Array.from({ length: 101 }, () => '8.8.8.8') });
      expect([big.status, await errorCode(big)]).toEqual([400, 'batch_too_large']);
    });

    test('one bad item fails the whole batch before any lookup, and nothing is billed', async () => {
      const month = monthKey(new Date());
      const before = (await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.lookup ?? 0;
      for (const ips of [
        ['8.8.8.8', '1.2.3'],
        ['8.8.8.8', 7],
        ['8.8.8.8', null],
      ]) {
        const res = await batch({ ips });
        expect([res.status, await errorCode(res)]).toEqual([400, 'invalid_ip']);
      }
      for (const [body, code] of [
        [{}, 'missing_field'],
        [{ ips: '8.8.8.8' }, 'invalid_field'],
        [[], 'invalid_field'],
      ] as const) {
        const res = await batch(body);
        expect([res.status, await errorCode(res)]).toEqual([400, code]);
      }
      expect((await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.lookup ?? 0).toBe(
        before,
      );
    });
  });

  describe('field selection (?fields=, "fields")', () => {
    test('GET /v1/lookup/{ip}: exactly the fields asked for, with ip and found; a group field one level down', async () => {
      const res = await lookup('8.8.8.8', '?fields=country,city,security.isVpn,locale.languages');
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['city', 'country', 'found', 'ip', 'locale', 'security']);
      expect(body).toMatchObject({
        ip: '8.8.8.8',
        country: 'US',
        found: true,
        security: { isVpn: expect.any(Boolean) },
      });
      expect(Object.keys(body.security as object)).toEqual(['isVpn']);
      expect(Object.keys(body.locale as object)).toEqual(['languages']);
      // hostname asked for as a field: the PTR lookup is made (null here: no PTR answer locally).
      const withHostname = (await (await lookup('8.8.8.8', '?fields=hostname')).json()) as object;
      expect(Object.keys(withHostname).sort()).toEqual(['found', 'hostname', 'ip']);
      // fields given twice: both lists, as one comma-separated list (not the last one alone).
      const twice = (await (
        await lookup('8.8.8.8', '?fields=country&fields=asn,security.isVpn')
      ).json()) as object;
      expect(Object.keys(twice).sort()).toEqual(['asn', 'country', 'found', 'ip', 'security']);
      const geo = await stack.call('GET', '/v1/geo?fields=country&fields=asn', {
        headers: { ...stack.browser(), 'X-Forwarded-For': '8.8.8.8' },
      });
      expect(await geo.json()).toEqual({ ip: '8.8.8.8', country: 'US', asn: 15169 });
    });

    test('an unknown field, a field of a plain field, or none: 400 invalid_fields naming it', async () => {
      for (const query of ['?fields=cuntry', '?fields=country.code', '?fields=', '?fields=,']) {
        const res = await lookup('8.8.8.8', query);
        expect(res.status).toBe(400);
        const body = (await res.json()) as { error: string; message: string };
        expect(body.error).toBe('invalid_fields');
      }
      const res = await batch({ ips: ['8.8.8.8'], fields: ['country', 'nope'] });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: 'invalid_fields',
        message: expect.stringContaining('"nope"'),
      });
      // The batch has no hostname (no PTR queries per call): asking for it is an unknown name.
      const ptr = await batch({ ips: ['8.8.8.8'], fields: 'country,hostname' });
      expect(ptr.status).toBe(400);
      expect(await ptr.json()).toMatchObject({
        error: 'invalid_fields',
        message: expect.stringContaining('"hostname"'),
      });
    });

    test('POST /v1/lookup: "fields" as a string or an array; 100 IPs asking country,asn is under 10% of the full body', async () => {
      const ips = Array.from(
        { length: 100 },
        (_, i) => `${8 + (i % 50)}.${(i * 7) % 256}.${(i * 13) % 256}.${1 + i}`,
      );
      const full = await batch({ ips });
      const some = await batch({ ips, fields: 'country,asn' });
      expect(some.status).toBe(200);
      const fullText = await full.text();
      const someText = await some.text();
      expect(someText.length).toBeLessThanOrEqual(fullText.length * 0.1);
      const { results } = JSON.parse(someText) as { results: Record<string, unknown>[] };
      expect(results.map((r) => r.ip)).toEqual(ips);
      for (const r of results) expect(Object.keys(r).sort()).toEqual(['asn', 'country', 'found', 'ip']);
      const asArray = (await (await batch({ ips: ips.slice(0, 3), fields: ['country', 'asn'] })).json()) as {
        results: unknown[];
      };
      expect(asArray.results).toEqual(results.slice(0, 3));
    });

    test('GET /v1/geo: ?fields= keeps ip and the fields asked for', async () => {
      const res = await stack.call('GET', '/v1/geo?fields=country,asn', {
        headers: { ...stack.browser(), 'X-Forwarded-For': '8.8.8.8' },
      });
      expect(await res.json()).toEqual({ ip: '8.8.8.8', country: 'US', asn: 15169 });
    });
  });

  describe('GET /v1/geo', () => {
    const geo = (headers: Record<string, string>, query = '') =>
      stack.call('GET', `/v1/geo${query}`, { headers: { ...stack.browser(), ...headers } });

    test('without CloudFront headers the connecting address is looked up (X-Forwarded-For trusted locally)', async () => {
      const res = await geo({ 'X-Forwarded-For': '8.8.8.8' });
      expect(res.status).toBe(200);
      const body = GeoResultSchema.parse(await res.json());
      expect(body).toMatchObject({
        ip: '8.8.8.8',
        country: 'US',
        asn: 15169,
        asOrganization: expect.any(String),
        isEUCountry: false,
      });
      expect(body).toHaveProperty('security');
    });

    test('a trusted X-Forwarded-For that is not an address is ignored: the connecting address, never an echo', async () => {
      // A zone id is no address either: the lookups refuse it as invalid_ip.
      const zoned = ['fe80::1%eth0', '2001:db8::1%1, 8.8.8.8'];
      for (const forwarded of ['<script>alert(1)</script>', '8.8.8.8x', 'unknown, 8.8.8.8', ...zoned]) {
        const body = GeoResultSchema.parse(await (await geo({ 'X-Forwarded-For': forwarded })).json());
        expect([forwarded, body.ip]).toEqual([forwarded, expect.stringMatching(/^(127\.0\.0\.1|::1)$/)]);
      }
    });

    test('from a loopback connection every location field is null', async () => {
      const body = GeoResultSchema.parse(await (await geo({ 'X-Forwarded-For': '127.0.0.1' })).json());
      expect(body).toMatchObject({
        ip: '127.0.0.1',
        country: null,
        latitude: null,
        asn: null,
        currency: null,
      });
    });

    test('CloudFront viewer headers with the origin secret give the edge location', async () => {
      const body = GeoResultSchema.parse(
        await (
          await geo({
            'X-Origin-Verify': ORIGIN_SECRET,
            'CloudFront-Viewer-Address': '193.99.144.80:51234',
            'CloudFront-Viewer-Country': 'FR',
            'CloudFront-Viewer-Country-Region': 'IDF',
            'CloudFront-Viewer-City': 'Paris',
            'CloudFront-Viewer-Postal-Code': '75001',
            'CloudFront-Viewer-Latitude': '48.86',
            'CloudFront-Viewer-Longitude': '2.34',
            'X-Forwarded-For': '8.8.8.8',
          })
        ).json(),
      );
      expect(body).toMatchObject({
        ip: '193.99.144.80',
        country: 'FR',
        regionCode: 'FR-IDF',
        city: 'Paris',
        postalCode: '75001',
        timezone: 'Europe/Paris',
        isEUCountry: true,
      });
      expect(body.currency?.code).toBe('EUR');
    });

    test('forged CloudFront headers without the origin secret are ignored', async () => {
      for (const verify of [{}, { 'X-Origin-Verify': 'wrong' }] as Record<string, string>[]) {
        const body = GeoResultSchema.parse(
          await (
            await geo({
              ...verify,
              'CloudFront-Viewer-Country': 'FR',
              'CloudFront-Viewer-City': 'Paris',
              'X-Forwarded-For': '8.8.8.8',
            })
          ).json(),
        );
        expect(body).toMatchObject({ ip: '8.8.8.8', country: 'US' });
        expect(body.city).not.toBe('Paris');
      }
    });

    test('each successful call records one geo usage event', async () => {
      const month = monthKey(new Date());
      const before = (await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.geo ?? 0;
      await geo({ 'X-Forwarded-For': '8.8.8.8' });
      await geo({ 'X-Forwarded-For': '8.8.8.8' }, '?include=nope');
      expect((await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.geo).toBe(
        before + 1,
      );
    });
  });
});
