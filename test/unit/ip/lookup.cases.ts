import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Clock } from '../../../functions/lib/clock.js';
import { parseCloudFrontViewerHeaders } from '../../../functions/lib/ip/cloudfront-headers.js';
import { LOOKUP_FIELDS as LOOKUP_CATALOG } from '../../../functions/lib/ip/field-catalogs.js';
import { parseFields } from '../../../functions/lib/ip/fields.js';
import { ipDataDir } from '../../../functions/lib/ip/ip-data.js';
import { createIpLookup, type IpLookup } from '../../../functions/lib/ip/lookup.js';
import { type ParsedIp, parseIp } from '../../../functions/lib/ip/parse-ip.js';
import {
  GeoResultSchema,
  IpLookupBatchItemSchema,
  type IpLookupResult,
  IpLookupResultSchema,
} from '../../../functions/lib/ip/schema.js';
import { noMatchClassifier, type SecurityClassifier } from '../../../functions/lib/security/classifier.js';
import * as z from '../../../functions/lib/zod.js';
import { makeFixtureDataDir } from './support/fixture-data.js';

const clock: Clock = { now: () => new Date('2026-07-04T18:00:00Z') };

const ip = (s: string): ParsedIp => {
  const parsed = parseIp(s);
  if (!parsed) throw new Error(`fixture address ${s} does not parse`);
  return parsed;
};

/** The documented field set of the IP lookup result (/docs), without the optional hostname and security. */
const LOOKUP_FIELDS = [
  'ip',
  'accuracyRadiusKm',
  'locationSource',
  'country',
  'region',
  'regionCode',
  'city',
  'postalCode',
  'continent',
  'timezone',
  'latitude',
  'longitude',
  'isEUCountry',
  'asn',
  'asOrganization',
  'currency',
  'callingCode',
  'compliance',
  'locale',
  'sun',
  'holiday',
  'age',
  'tax',
  'userAgent',
  'found',
].sort();

let dir: string;
let cleanup: () => Promise<void>;
let lookup: IpLookup;

describe('lookup', () => {
  beforeAll(async () => {
    ({ dir, cleanup } = await makeFixtureDataDir());
    lookup = createIpLookup({ dataDir: dir, clock, security: noMatchClassifier });
  });

  afterAll(async () => {
    await cleanup();
  });

  describe('IP lookup of known addresses (pinned DB-IP Lite data)', () => {
    test('8.8.8.8 is Mountain View, California, AS15169, with every derived group', async () => {
      const r = await lookup.lookup(ip('8.8.8.8'));
      expect(r).toEqual({
        ip: '8.8.8.8',
        country: 'US',
        region: 'California',
        regionCode: 'US-CA',
        city: 'Mountain View',
        postalCode: '94043',
        continent: 'NA',
        latitude: expect.closeTo(37.422, 3),
        longitude: expect.closeTo(-122.085, 3),
        accuracyRadiusKm: null,
        timezone: 'America/Los_Angeles',
        locationSource: 'database',
        isEUCountry: false,
        asn: 15169,
        asOrganization: 'Google LLC',
        currency: { code: 'USD', name: 'US Dollar', symbol: '$' },
        callingCode: '+1',
        compliance: expect.objectContaining({ ccpa: true, gdpr: false, regimes: ['CCPA'] }),
        locale: expect.objectContaining({ suggestedLocale: 'en-US', measurementSystem: 'imperial' }),
        sun: expect.objectContaining({ isDaylight: true }),
        holiday: expect.objectContaining({ localDate: '2026-07-04', isPublicHoliday: true }),
        age: { majority: 18, digitalConsent: 13 },
        tax: { type: 'sales_tax', standardRate: null, name: 'Sales tax' },
        userAgent: null,
        found: true,
      });
    });

    test('1.1.1.1 is Sydney, New South Wales, AS13335', async () => {
      const r = await lookup.lookup(ip('1.1.1.1'));
      expect(r).toMatchObject({
        country: 'AU',
        region: 'New South Wales',
        regionCode: 'AU-NSW',
        city: 'Sydney',
        postalCode: '1001',
        continent: 'OC',
        timezone: 'Australia/Sydney',
        asn: 13335,
        asOrganization: 'Cloudflare, Inc.',
        currency: { code: 'AUD', symbol: '$' },
        callingCode: '+61',
        tax: { type: 'GST', standardRate: 10 },
        found: true,
      });
    });

    test('2001:4860:4860::8888 is found in the IPv6 file with AS15169', async () => {
      const r = await lookup.lookup(ip('2001:4860:4860::8888'));
      expect(r).toMatchObject({
        ip: '2001:4860:4860::8888',
        country: 'CA',
        regionCode: 'CA-QC',
        asn: 15169,
        found: true,
      });
      expect(r.timezone).toBe('America/Toronto');
    });

    test('an EU address is flagged EU with GDPR, euro and its VAT', async () => {
      const r = await lookup.lookup(ip('193.0.6.139'));
      expect(r).toMatchObject({
        country: 'NL',
        region: 'North Holland',
        regionCode: 'NL-NH',
        postalCode: '1016',
        continent: 'EU',
        timezone: 'Europe/Amsterdam',
        isEUCountry: true,
        asn: 3333,
        currency: { code: 'EUR', symbol: '€' },
        callingCode: '+31',
        compliance: { gdpr: true, regimes: ['GDPR'] },
        tax: { type: 'VAT', standardRate: 21 },
        age: { majority: 18, digitalConsent: 16 },
      });
    });

    test('a UK address is outside the EU and under UK GDPR', async () => {
      const r = await lookup.lookup(ip('81.2.69.142'));
      expect(r).toMatchObject({ country: 'GB', regionCode: 'GB-ENG', region: 'England', postalCode: 'EC4N' });
      expect(r).toMatchObject({ isEUCountry: false, compliance: { ukGdpr: true, gdpr: false }, asn: 20712 });
    });

    test('an IPv4-mapped IPv6 address gives the same answer as the IPv4 address, echoed as supplied', async () => {
      const mapped = await lookup.lookup(ip('::ffff:8.8.8.8'));
      const plain = await lookup.lookup(ip('8.8.8.8'));
      expect(mapped.ip).toBe('::ffff:8.8.8.8');
      expect({ ...mapped, ip: plain.ip }).toEqual(plain);
    });

    test('the address is echoed exactly as supplied', async () => {
      expect((await lookup.lookup(ip('2001:4860:4860:0:0:0:0:8888'))).ip).toBe('2001:4860:4860:0:0:0:0:8888');
    });

    test('a country without postal coverage or a mapped subdivision gives null there, not a guess', async () => {
      // Tokyo: the fixture postal index has no JP points, and date-holidays has no JP subdivisions.
      const r = await lookup.lookup(ip('133.242.0.1'));
      expect(r).toMatchObject({
        country: 'JP',
        postalCode: null,
        region: null,
        regionCode: null,
        found: true,
      });
      expect(r.timezone).toBe('Asia/Tokyo');
    });

    test('userAgent is echoed when given and null otherwise', async () => {
      expect((await lookup.lookup(ip('8.8.8.8'), { userAgent: 'curl/8.0' })).userAgent).toBe('curl/8.0');
      expect((await lookup.lookup(ip('8.8.8.8'))).userAgent).toBeNull();
    });
  });

  describe('addresses that are not looked up or not found (found false, null location)', () => {
    test.each([
      '10.0.0.1',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.1.1',
      '100.64.0.1',
      '192.0.2.1',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      'fe80::1',
      'fd00::1',
      '2001:db8::1',
      'ff02::1',
      '::ffff:10.0.0.1',
    ])('%s is found false with every location and network field null', async (address) => {
      const r = await lookup.lookup(ip(address));
      expect(r).toEqual({
        ip: address,
        country: null,
        region: null,
        regionCode: null,
        city: null,
        postalCode: null,
        continent: null,
        latitude: null,
        longitude: null,
        accuracyRadiusKm: null,
        timezone: null,
        locationSource: null,
        isEUCountry: false,
        asn: null,
        asOrganization: null,
        currency: null,
        callingCode: null,
        compliance: null,
        locale: null,
        sun: null,
        holiday: null,
        age: null,
        tax: null,
        userAgent: null,
        found: false,
      });
    });

    test('a data directory without the city files answers found false instead of failing', async () => {
      const empty = createIpLookup({ dataDir: '/nonexistent/netintel-ip-data', clock });
      const r = await empty.lookup(ip('8.8.8.8'));
      expect(r).toMatchObject({ ip: '8.8.8.8', found: false, country: null, asn: null });
      expect(await empty.ready()).toMatchObject({ available: false });
      expect(await empty.manifest()).toEqual([]);
    });

    test('after a failed open the data is tried again once the retry delay has passed', async () => {
      let t = Date.parse('2026-07-04T18:00:00Z');
      const moving: Clock = { now: () => new Date(t) };
      const missing = createIpLookup({
        dataDir: '/nonexistent/netintel-ip-data',
        clock: moving,
        retryAfterMs: 1000,
      });
      expect((await missing.ready()).available).toBe(false);
      t += 2000;
      expect((await missing.ready()).available).toBe(false); // retried, still missing, no throw
    });
  });

  describe('result shape (zod schema, field by field)', () => {
    test.each([
      '8.8.8.8',
      '1.1.1.1',
      '193.0.6.139',
      '81.2.69.142',
      '185.60.216.35',
      '41.0.0.1',
      '133.242.0.1',
      '2a00:1450:4001::1',
      '10.0.0.1',
    ])('%s has exactly the documented fields and matches the schema', async (address) => {
      const r = await lookup.lookup(ip(address));
      expect(Object.keys(r).sort()).toEqual(LOOKUP_FIELDS);
      expect(z.strictObject(IpLookupResultSchema.shape).parse(r)).toEqual(r);
      const { userAgent: _ua, ...item } = r;
      expect(z.strictObject(IpLookupBatchItemSchema.shape).parse(item)).toEqual(item);
    });

    test('security is present only when asked for, with the five booleans', async () => {
      expect('security' in (await lookup.lookup(ip('8.8.8.8')))).toBe(false);
      const r = await lookup.lookup(ip('8.8.8.8'), { includeSecurity: true });
      expect(r.security).toEqual({
        isTor: false,
        isVpn: false,
        isDatacenter: false,
        isThreat: false,
        isSanctionedNetwork: false,
      });
      expect(z.strictObject(IpLookupResultSchema.shape).parse(r)).toEqual(r);
    });

    test('an address not found has the keys of a found one, in the same order', async () => {
      const found = await lookup.lookup(ip('8.8.8.8'), { includeSecurity: true });
      for (const address of ['10.0.0.1', '2001:db8::1']) {
        const notFound = await lookup.lookup(ip(address), { includeSecurity: true });
        expect(notFound.found).toBe(false);
        expect(Object.keys(notFound)).toEqual(Object.keys(found));
      }
    });

    test('the classifier is asked with the parsed address', async () => {
      const seen: string[] = [];
      const spy: SecurityClassifier = {
        classify: (p) => {
          seen.push(p.lookupAddress);
          return {
            isTor: true,
            isVpn: false,
            isDatacenter: false,
            isThreat: false,
            isSanctionedNetwork: false,
          };
        },
      };
      const withSecurity = createIpLookup({ dataDir: dir, clock, security: spy });
      expect(
        (await withSecurity.lookup(ip('::ffff:1.1.1.1'), { includeSecurity: true })).security?.isTor,
      ).toBe(true);
      expect(seen).toEqual(['1.1.1.1']);
    });

    test('fields not asked for are not computed: no security flags, network, sun or holiday', async () => {
      let asked = 0;
      const counting: SecurityClassifier = {
        classify: () => {
          asked++;
          return {
            isTor: false,
            isVpn: false,
            isDatacenter: false,
            isThreat: false,
            isSanctionedNetwork: false,
          };
        },
      };
      const withSecurity = createIpLookup({ dataDir: dir, clock, security: counting });
      const parsed = parseFields('country,city', LOOKUP_CATALOG);
      if (!parsed.ok) throw new Error(parsed.message);
      const r = await withSecurity.lookup(ip('8.8.8.8'), { includeSecurity: true, fields: parsed.selection });
      expect(asked).toBe(0);
      expect(r).toMatchObject({ country: 'US', asn: null, sun: null, holiday: null });
      expect(r).not.toHaveProperty('security');
      // Asked for, they are there.
      const all = await withSecurity.lookup(ip('8.8.8.8'), { includeSecurity: true });
      expect(asked).toBe(1);
      expect(all.asn).toBe(15169);
    });

    test('every schema field carries a description (the OpenAPI document is generated from them)', () => {
      const undocumented: string[] = [];
      const walk = (schema: z.core.$ZodType, path: string) => {
        const describedAt = (s: z.core.$ZodType) => Boolean(z.globalRegistry.get(s)?.description);
        let inner = schema;
        let described = describedAt(inner);
        // Through the wrappers (optional, nullable, ...) and an array's element, to the object.
        for (;;) {
          const def = inner._zod.def as { innerType?: z.core.$ZodType; element?: z.core.$ZodType };
          const next = def.innerType ?? def.element;
          if (!next) break;
          inner = next;
          described ||= describedAt(inner);
        }
        if (path && !described) undocumented.push(path);
        if (inner._zod.def.type === 'object')
          for (const [k, v] of Object.entries((inner as z.core.$ZodObject)._zod.def.shape))
            walk(v, path ? `${path}.${k}` : k);
      };
      walk(IpLookupResultSchema, '');
      walk(GeoResultSchema, '');
      expect(undocumented).toEqual([]);
    });
  });

  describe('visitor geolocation (GET /v1/geo)', () => {
    const GEO_FIELDS = [
      'ip',
      'accuracyRadiusKm',
      'locationSource',
      'country',
      'region',
      'regionCode',
      'city',
      'postalCode',
      'continent',
      'latitude',
      'longitude',
      'timezone',
      'isEUCountry',
      'asn',
      'asOrganization',
      'currency',
      'callingCode',
      'locale',
      'holidays',
      'compliance',
      'tax',
      'ageVerification',
    ].sort();

    test('without edge headers the DB-IP file answers, with the documented field names of the visitor result', async () => {
      const g = await lookup.geo(ip('8.8.8.8'));
      expect(Object.keys(g).sort()).toEqual(GEO_FIELDS);
      expect(z.strictObject(GeoResultSchema.shape).parse(g)).toEqual(g);
      expect(g).toMatchObject({
        country: 'US',
        regionCode: 'US-CA',
        asn: 15169,
        holidays: { isPublicHoliday: true },
        locationSource: 'database',
      });
    });

    test('the edge location wins over the database as a whole, gaps filled from our tables', async () => {
      const edge = parseCloudFrontViewerHeaders({
        'cloudfront-viewer-country': 'US',
        'cloudfront-viewer-country-region': 'WA',
        'cloudfront-viewer-city': 'Seattle',
        'cloudfront-viewer-latitude': '47.60620',
        'cloudfront-viewer-longitude': '-122.33210',
        'cloudfront-viewer-asn': '15169',
      });
      const g = await lookup.geo(ip('8.8.8.8'), { edge });
      expect(g).toMatchObject({
        country: 'US',
        region: 'Washington',
        regionCode: 'US-WA',
        city: 'Seattle',
        latitude: 47.6062,
        timezone: 'America/Los_Angeles',
        asn: 15169,
        asOrganization: 'Google LLC',
        compliance: { ccpa: false },
        locationSource: 'edge',
      });
      expect(z.strictObject(GeoResultSchema.shape).parse(g)).toEqual(g);
    });

    test('an edge ASN other than the database one keeps the edge ASN', async () => {
      const edge = parseCloudFrontViewerHeaders({
        'cloudfront-viewer-country': 'AU',
        'cloudfront-viewer-asn': '13335',
      });
      const g = await lookup.geo(ip('8.8.8.8'), { edge });
      expect(g).toMatchObject({
        country: 'AU',
        asn: 13335,
        asOrganization: 'Cloudflare, Inc.',
        timezone: null,
      });
    });

    test('a private address without edge data resolves nothing', async () => {
      const g = await lookup.geo(ip('127.0.0.1'), { includeSecurity: true });
      expect(g).toMatchObject({ ip: '127.0.0.1', country: null, asn: null, locale: null, holidays: null });
      expect(g.security).toBeDefined();
      expect(z.strictObject(GeoResultSchema.shape).parse(g)).toEqual(g);
    });
  });

  describe('lookup properties', () => {
    test('any valid IPv4 or IPv6 address looks up without throwing and matches the schema', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.ipV4(),
            fc.ipV6(),
            fc.ipV4Extended().filter((s) => parseIp(s) !== null),
          ),
          async (s) => {
            const parsed = parseIp(s);
            expect(parsed).not.toBeNull();
            const r: IpLookupResult = await lookup.lookup(parsed as ParsedIp, { includeSecurity: true });
            expect(z.strictObject(IpLookupResultSchema.shape).parse(r)).toEqual(r);
            expect(r.ip).toBe(s);
            if (!r.found) expect(r.country).toBeNull();
            else expect(r.country).toMatch(/^[A-Z]{2}$/);
          },
        ),
        { numRuns: 150 },
      );
    });
  });

  test('ipDataDir is the ip folder of the data-layer root', () => {
    expect(ipDataDir('/opt/data')).toBe('/opt/data/ip');
    expect(ipDataDir('layers/data')).toBe('layers/data/ip');
  });
});
