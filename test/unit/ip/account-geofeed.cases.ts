import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Clock } from '../../../functions/lib/clock.js';
import {
  ACCOUNT_GEOFEED_MAX_BYTES,
  ACCOUNT_GEOFEED_MAX_ERRORS,
  ACCOUNT_GEOFEED_MAX_PREFIXES,
  type AccountGeofeed,
  parseAccountGeofeed,
} from '../../../functions/lib/ip/account-geofeed.js';
import { parseCloudFrontViewerHeaders } from '../../../functions/lib/ip/cloudfront-headers.js';
import {
  compileGeofeeds,
  GeofeedIndex,
  parseGeofeed,
  parseGeofeedIndex,
} from '../../../functions/lib/ip/geofeed.js';
import {
  IpData,
  type LoadedData,
  locationRecordOf,
  locationSourceOf,
} from '../../../functions/lib/ip/ip-data.js';
import { createIpLocator, type IpLocator } from '../../../functions/lib/ip/locator.js';
import { createIpLookup, type IpLookup } from '../../../functions/lib/ip/lookup.js';
import { IP_DATA_FILES } from '../../../functions/lib/ip/manifest.js';
import { type ParsedIp, parseIp } from '../../../functions/lib/ip/parse-ip.js';
import {
  GeoResultSchema,
  IpLookupBatchItemSchema,
  IpLookupResultSchema,
} from '../../../functions/lib/ip/schema.js';
import type { LocationRecord } from '../../../functions/lib/ip/sources.js';
import { SubdivisionIndex } from '../../../functions/lib/ip/subdivision.js';
import * as z from '../../../functions/lib/zod.js';
import { makeFixtureDataDir } from './support/fixture-data.js';

// An account's private geofeed (docs/api.md: Private geofeed): parsing it all or nothing within its
// limits, and the overlay of the lookups: the account's feed, then the operator's, then the database,
// per call, never leaking from one account's feed into another's answers.

const clock: Clock = { now: () => new Date('2026-07-04T18:00:00Z') };
const ip = (s: string): ParsedIp => {
  const parsed = parseIp(s);
  if (!parsed) throw new Error(`fixture address ${s} does not parse`);
  return parsed;
};

/** The feed of a text that must be accepted. */
function feedOf(...lines: string[]): AccountGeofeed {
  const result = parseAccountGeofeed(lines.join('\n'));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.feed;
}

/** `count` distinct public /16 prefixes (11.0.0.0/16 ... 50.255.0.0/16: none special). */
function sixteens(count: number): string[] {
  const out: string[] = [];
  for (let a = 11; out.length < count; a++) {
    for (let b = 0; b < 256 && out.length < count; b++) out.push(`${a}.${b}.0.0/16,US,,,`);
  }
  return out;
}

// The operator's feed of the data directory: 8.8.8.0/24 is Seattle for every caller, 1.1.1.0/24 is
// not to be located.
const OPERATOR_FEED = 'https://noc.example.net/geofeed.csv';
const OPERATOR_LINES = ['8.8.8.0/24,US,US-WA,Seattle,', '1.1.1.0/24,,,,'].join('\n');

let dir: string;
let cleanup: () => Promise<void>;
let data: IpData;
let lookup: IpLookup;
let locator: IpLocator;
/** A lookup over the same directory that is never given an account's feed. */
let plain: IpLookup;

describe('account geofeed', () => {
  beforeAll(async () => {
    ({ dir, cleanup } = await makeFixtureDataDir());
    const operator = parseGeofeed(OPERATOR_LINES, OPERATOR_FEED);
    if (!operator.ok || operator.invalid.length > 0) throw new Error('operator feed fixture');
    const table = compileGeofeeds([{ origin: OPERATOR_FEED, entries: operator.entries }]);
    await writeFile(join(dir, IP_DATA_FILES.geofeed), JSON.stringify(table));
    data = new IpData(dir, { clock });
    lookup = createIpLookup({ data, clock });
    locator = createIpLocator({ data });
    plain = createIpLookup({ dataDir: dir, clock });
  });

  afterAll(async () => {
    await cleanup();
  });

  describe('parsing (all or nothing, within the limits)', () => {
    test('a valid feed is accepted with its number of prefixes', () => {
      const result = parseAccountGeofeed(
        [
          '# our offices',
          '8.8.8.0/24,US,US-CA,Palo Alto,94301',
          '',
          '2a00:1450:4001::/48,de,de-he,Frankfurt am Main, # comment',
          '8.8.4.0/24,,,,',
        ].join('\r\n'),
      );
      expect(result).toMatchObject({ ok: true, prefixes: 3 });
      if (!result.ok) return;
      expect(result.feed.size).toBe(3);
      expect(result.feed.entries()).toEqual([
        {
          prefix: '8.8.4.0/24',
          country: '',
          regionCode: null,
          city: null,
          postalCode: null,
          origin: 'account',
        },
        {
          prefix: '8.8.8.0/24',
          country: 'US',
          regionCode: 'US-CA',
          city: 'Palo Alto',
          postalCode: '94301',
          origin: 'account',
        },
        {
          prefix: '2a00:1450:4001::/48',
          country: 'DE',
          regionCode: 'DE-HE',
          city: 'Frankfurt am Main',
          postalCode: null,
          origin: 'account',
        },
      ]);
    });

    test('exactly 10,000 prefixes are accepted, 10,001 refused as a whole (line 0); comments do not count', () => {
      expect(ACCOUNT_GEOFEED_MAX_PREFIXES).toBe(10_000);
      const lines = sixteens(10_001);
      const ok = parseAccountGeofeed(['# header', ...lines.slice(0, 10_000), '', '# end'].join('\n'));
      expect(ok).toMatchObject({ ok: true, prefixes: 10_000 });
      expect(parseAccountGeofeed(lines.join('\n'))).toEqual({
        ok: false,
        errors: [{ line: 0, reason: 'the feed has more than 10000 prefixes' }],
        moreErrors: 0,
      });
    });

    test('exactly 1 MiB of UTF-8 is accepted, one byte more refused as a whole (line 0)', () => {
      expect(ACCOUNT_GEOFEED_MAX_BYTES).toBe(1_048_576);
      const head = '5.101.96.0/21,BR,BR-SP,São Paulo,\n# '; // 37 bytes, 36 characters
      const exact = head + 'x'.repeat(ACCOUNT_GEOFEED_MAX_BYTES - Buffer.byteLength(head));
      expect(Buffer.byteLength(exact)).toBe(ACCOUNT_GEOFEED_MAX_BYTES);
      expect(exact.length).toBe(ACCOUNT_GEOFEED_MAX_BYTES - 1);
      expect(parseAccountGeofeed(exact)).toMatchObject({ ok: true, prefixes: 1 });
      expect(parseAccountGeofeed(`${exact}x`)).toEqual({
        ok: false,
        errors: [{ line: 0, reason: 'the feed is larger than 1048576 bytes (1 MiB)' }],
        moreErrors: 0,
      });
    });

    test('any bad row refuses the whole feed, naming every bad line and why; nothing of it is usable', () => {
      const result = parseAccountGeofeed(
        [
          '# ip_prefix,alpha2code,region,city,postal_code',
          '8.8.8.0/24,US,US-CA,Palo Alto,',
          '8.8.4.0/24,UK,,,',
          '8.8.8.0/24,US,,,',
          '192.168.0.0/16,US,,,',
          '8.8.8.5/24,US,,,',
          '1.1.1.0/24,AU,AU-NSW,Sydney,2000',
        ].join('\n'),
      );
      expect(result).toEqual({
        ok: false,
        errors: [
          { line: 3, reason: '"UK" is not an ISO 3166-1 alpha-2 country code (the United Kingdom is GB)' },
          // An operator's feed keeps the first entry; an account's feed is refused whole.
          { line: 4, reason: 'duplicate of line 2 (8.8.8.0/24)' },
          {
            line: 5,
            reason: 'prefix 192.168.0.0/16 overlaps a special-purpose range (private)',
          },
          { line: 6, reason: 'host bits set in "8.8.8.5/24": the network is 8.8.8.0/24' },
        ],
        moreErrors: 0,
      });
      expect('feed' in result).toBe(false);
    });

    test('at most 100 errors are listed, and how many more there are', () => {
      const lines = Array.from({ length: 150 }, (_, i) => `8.8.${i}.0/24,XX,,,`);
      const result = parseAccountGeofeed(['8.8.200.0/24,US,,,', ...lines].join('\n'));
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors).toHaveLength(ACCOUNT_GEOFEED_MAX_ERRORS);
      expect(result.errors[0]).toEqual({ line: 2, reason: '"XX" is not an ISO 3166-1 alpha-2 country code' });
      expect(result.errors.at(-1)?.line).toBe(101);
      expect(result.moreErrors).toBe(50);
    });

    test('a feed without a prefix is refused: removing a feed is a delete', () => {
      for (const text of ['', '\n\n', '# nothing yet\n   # still nothing\n']) {
        expect(parseAccountGeofeed(text)).toEqual({
          ok: false,
          errors: [{ line: 0, reason: 'the feed has no prefixes (to remove a feed, delete it)' }],
          moreErrors: 0,
        });
      }
    });

    test('the index built from the parse answers exactly as the compiled table loaded from JSON', () => {
      // Lines in two small regions, so that prefixes nest, repeat and are sometimes invalid.
      const v4 = fc
        .tuple(
          fc.integer({ min: 96, max: 99 }),
          fc.integer({ min: 0, max: 255 }),
          fc.integer({ min: 16, max: 32 }),
        )
        .map(([c, d, len]) => `5.101.${c}.${d}/${len}`);
      const v6 = fc
        .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 19, max: 64 }))
        .map(([g, len]) => `2a03:b0c0:${g}::/${len}`);
      const line = fc
        .tuple(fc.oneof(v4, v6), fc.constantFrom('NL,NL-NH,Amsterdam,', 'US,,,', ',,,', 'DE,DE-BE,,10115'))
        .map(([prefix, rest]) => `${prefix},${rest}`);
      const address = fc.oneof(
        fc
          .tuple(fc.integer({ min: 95, max: 100 }), fc.integer({ min: 0, max: 255 }))
          .map(([c, d]) => `5.101.${c}.${d}`),
        fc
          .tuple(fc.integer({ min: 95, max: 100 }), fc.integer({ min: 0, max: 255 }))
          .map(([c, d]) => `::ffff:5.101.${c}.${d}`),
        fc
          .tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 0xffff }))
          .map(([g, h]) => `2a03:b0c0:${g}::${h.toString(16)}`),
      );
      fc.assert(
        fc.property(
          fc.array(line, { maxLength: 60 }),
          fc.array(address, { minLength: 1, maxLength: 30 }),
          (lines, addresses) => {
            const text = lines.join('\n');
            const fast = parseGeofeedIndex(text, 'account');
            const slow = parseGeofeed(text, 'account');
            if (!fast.ok || !slow.ok) throw new Error('no limit is reached here');
            expect(fast.entries).toEqual(slow.entries);
            expect(fast.invalid).toEqual(slow.invalid);
            const table = compileGeofeeds([{ origin: 'account', entries: slow.entries }]);
            const loaded = new GeofeedIndex(JSON.parse(JSON.stringify(table)));
            const built = fast.index();
            expect(built.all()).toEqual(loaded.all());
            expect(built.origins).toEqual(['account']);
            for (const a of addresses) expect(built.lookup(ip(a))).toEqual(loaded.lookup(ip(a)));
          },
        ),
        { numRuns: 150 },
      );
    });
  });

  describe('the overlay: the account feed, then the operator feed, then the database', () => {
    test('without an account feed: the operator feed for its prefixes, else the database, and where each came from', async () => {
      expect(await lookup.lookup(ip('8.8.8.8'))).toMatchObject({
        country: 'US',
        regionCode: 'US-WA',
        city: 'Seattle',
        locationSource: 'geofeed',
        found: true,
      });
      expect(await lookup.lookup(ip('8.8.4.4'))).toMatchObject({
        city: 'Mountain View',
        locationSource: 'database',
      });
      expect(await lookup.lookup(ip('1.1.1.1'))).toMatchObject({
        country: null,
        locationSource: null,
        found: false,
      });
      expect(await lookup.lookup(ip('10.0.0.1'))).toMatchObject({ locationSource: null, found: false });
    });

    test('the account feed answers first, over the operator feed and its "do not geolocate"', async () => {
      const feed = feedOf('8.8.8.0/24,US,US-CA,Palo Alto,94301', '1.1.1.0/24,AU,,,');
      const r = await lookup.lookup(ip('8.8.8.8'), { geofeed: feed });
      expect(r).toMatchObject({
        country: 'US',
        region: 'California',
        regionCode: 'US-CA',
        city: 'Palo Alto',
        postalCode: '94301',
        // The database places it in the same country and region: its coordinates and zone.
        latitude: expect.closeTo(37.422, 3),
        longitude: expect.closeTo(-122.085, 3),
        timezone: 'America/Los_Angeles',
        locationSource: 'account_geofeed',
        asn: 15169,
        compliance: { ccpa: true },
        found: true,
      });
      expect(z.strictObject(IpLookupResultSchema.shape).parse(r)).toEqual(r);
      // The operator asks for 1.1.1.0/24 not to be located; the account's own feed locates it.
      expect(await lookup.lookup(ip('1.1.1.1'), { geofeed: feed })).toMatchObject({
        country: 'AU',
        region: 'New South Wales',
        city: 'Sydney',
        locationSource: 'account_geofeed',
        found: true,
      });
      // Outside the account's prefixes: the operator feed and the database, as for everyone.
      expect(await lookup.lookup(ip('8.8.4.4'), { geofeed: feed })).toMatchObject({
        city: 'Mountain View',
        locationSource: 'database',
      });
    });

    test('the most specific prefix of the account feed wins (a /24 inside a /16)', async () => {
      const feed = feedOf('8.8.0.0/16,US,US-WA,Seattle,', '8.8.8.0/24,US,US-CA,Palo Alto,');
      const cities = async (addresses: string[]) =>
        Promise.all(addresses.map(async (a) => (await lookup.lookup(ip(a), { geofeed: feed })).city));
      expect(await cities(['8.8.8.8', '8.8.8.255', '8.8.4.4', '8.8.9.9', '8.8.255.1', '8.9.0.1'])).toEqual([
        'Palo Alto',
        'Palo Alto',
        'Seattle',
        'Seattle',
        'Seattle',
        (await plain.lookup(ip('8.9.0.1'))).city, // outside the /16: the database's
      ]);
      expect((await lookup.lookup(ip('8.8.4.4'), { geofeed: feed })).regionCode).toBe('US-WA');
    });

    test('fields the entry leaves empty come from the database, when it places the address in the same country', async () => {
      const at = async (line: string) => {
        const r = await lookup.lookup(ip('8.8.8.8'), { geofeed: feedOf(line) });
        expect(r.locationSource).toBe('account_geofeed');
        const { country, region, regionCode, city, postalCode, latitude, timezone } = r;
        return { country, region, regionCode, city, postalCode, latitude, timezone };
      };
      const database = {
        country: 'US',
        region: 'California',
        regionCode: 'US-CA',
        city: 'Mountain View',
        postalCode: '94043',
        latitude: expect.closeTo(37.422, 3),
        timezone: 'America/Los_Angeles',
      };
      // Country only: everything else is the database's.
      expect(await at('8.8.8.0/24,US,,,')).toEqual(database);
      // The same region: the database's city too.
      expect(await at('8.8.8.0/24,US,US-CA,,')).toEqual(database);
      // Another region of the same country: not the database's city (it is not in that region).
      expect(await at('8.8.8.0/24,US,US-WA,,')).toMatchObject({
        country: 'US',
        region: 'Washington',
        regionCode: 'US-WA',
        city: null,
        latitude: expect.closeTo(37.422, 3),
      });
      // Another country: only what the entry says.
      expect(await at('8.8.8.0/24,DE,DE-BY,Munich,80331')).toEqual({
        country: 'DE',
        region: 'Bayern',
        regionCode: 'DE-BY',
        city: 'Munich',
        postalCode: '80331',
        latitude: null,
        timezone: null,
      });
      expect(await at('8.8.8.0/24,DE,,,')).toEqual({
        country: 'DE',
        region: null,
        regionCode: null,
        city: null,
        postalCode: null,
        latitude: null,
        timezone: null,
      });
    });

    test('a "do not geolocate" entry of the account feed: no location, over the operator feed and the database', async () => {
      const feed = feedOf('8.8.8.0/24,,,,', '8.8.4.0/24,ZZ,,,');
      for (const address of ['8.8.8.8', '8.8.4.4', '::ffff:8.8.8.8']) {
        expect(await lookup.lookup(ip(address), { geofeed: feed })).toMatchObject({
          ip: address,
          country: null,
          city: null,
          latitude: null,
          locationSource: null,
          asn: null,
          found: false,
        });
      }
      expect(await locator.locate(ip('8.8.4.4'), { geofeed: feed })).toMatchObject({
        country: null,
        locationSource: null,
        found: false,
      });
    });

    test('IPv4-mapped IPv6 addresses and prefixes are their IPv4 ones', async () => {
      const written4 = feedOf('8.8.8.0/24,US,US-CA,Palo Alto,');
      const written6 = feedOf('::ffff:8.8.8.0/120,US,US-CA,Palo Alto,');
      for (const feed of [written4, written6]) {
        for (const address of ['8.8.8.8', '::ffff:8.8.8.8', '::ffff:808:808']) {
          expect(await lookup.lookup(ip(address), { geofeed: feed })).toMatchObject({
            ip: address,
            city: 'Palo Alto',
            locationSource: 'account_geofeed',
          });
        }
      }
      expect(written6.entries()[0]?.prefix).toBe('8.8.8.0/24');
    });

    test('IPv6 prefixes', async () => {
      const feed = feedOf('2a00:1450:4001::/48,DE,DE-HE,,', '2001:4860:4860::/48,CA,,Laval,');
      expect(await lookup.lookup(ip('2a00:1450:4001::1'), { geofeed: feed })).toMatchObject({
        country: 'DE',
        regionCode: 'DE-HE',
        city: 'Frankfurt am Main',
        locationSource: 'account_geofeed',
      });
      expect(await lookup.lookup(ip('2001:4860:4860::8888'), { geofeed: feed })).toMatchObject({
        country: 'CA',
        regionCode: 'CA-QC',
        city: 'Laval',
        locationSource: 'account_geofeed',
      });
    });

    test('the batch items carry locationSource and match their schema', async () => {
      const feed = feedOf('8.8.8.0/24,US,US-CA,Palo Alto,');
      const items = await Promise.all(
        ['8.8.8.8', '8.8.4.4', '10.0.0.1', '1.1.1.1'].map((a) => lookup.lookup(ip(a), { geofeed: feed })),
      );
      expect(items.map((r) => r.locationSource)).toEqual(['account_geofeed', 'database', null, null]);
      for (const { userAgent: _userAgent, ...item } of items) {
        expect(z.strictObject(IpLookupBatchItemSchema.shape).parse(item)).toEqual(item);
      }
    });
  });

  describe('per call: feeds never leak into other answers', () => {
    const FEED_A = ['8.8.8.0/24,US,US-CA,Palo Alto,', '8.8.0.0/16,US,US-WA,Seattle,'];
    const FEED_B = ['8.8.8.0/24,US,US-CA,Sunnyvale,', '8.8.4.0/24,DE,DE-BY,Munich,'];

    test('two feeds covering the same address answer differently, interleaved, in one lookup and one locator', async () => {
      const a = feedOf(...FEED_A);
      const b = feedOf(...FEED_B);
      const expected = {
        a: { '8.8.8.8': 'Palo Alto', '8.8.4.4': 'Seattle', '1.1.1.1': null },
        b: { '8.8.8.8': 'Sunnyvale', '8.8.4.4': 'Munich', '1.1.1.1': null },
        none: { '8.8.8.8': 'Seattle', '8.8.4.4': 'Mountain View', '1.1.1.1': null },
      } as const;
      const feeds = { a, b, none: undefined };
      const order = fc.sample(
        fc.tuple(fc.constantFrom('a', 'b', 'none'), fc.constantFrom('8.8.8.8', '8.8.4.4', '1.1.1.1')),
        { numRuns: 300, seed: 42 },
      ) as [keyof typeof feeds, keyof (typeof expected)['a']][];
      // One at a time, then all at once (a batch, and several requests in flight).
      for (const [who, address] of order) {
        const r = await lookup.lookup(ip(address), { geofeed: feeds[who] });
        expect([who, address, r.city]).toEqual([who, address, expected[who][address]]);
        const l = await locator.locate(ip(address), { geofeed: feeds[who] });
        expect([who, address, l.city]).toEqual([who, address, expected[who][address]]);
      }
      const all = await Promise.all(
        order.map(async ([who, address]) => {
          const [r, l] = await Promise.all([
            lookup.lookup(ip(address), { geofeed: feeds[who] }),
            locator.locate(ip(address), { geofeed: feeds[who] }),
          ]);
          return [who, address, r.city, l.city];
        }),
      );
      expect(all).toEqual(
        order.map(([who, address]) => [who, address, expected[who][address], expected[who][address]]),
      );
    });

    test('two accounts uploading the same text get feeds of their own, with the same answers', async () => {
      const first = feedOf(...FEED_A);
      const second = feedOf(...FEED_A);
      expect(first.entries()[0]).not.toBe(second.entries()[0]);
      const d = await data.open();
      const one = locationRecordOf(d, ip('8.8.8.8'), first);
      const two = locationRecordOf(d, ip('8.8.8.8'), second);
      expect(one).not.toBe(two);
      expect(one).toEqual(two);
      // The same feed and address: the same record object (the caches keyed by it stay warm).
      expect(locationRecordOf(d, ip('8.8.8.9'), first)).toBe(one);
    });

    test('any interleaving: each answer is the one a lookup that only ever saw that feed gives', async () => {
      const feeds = [undefined, feedOf(...FEED_A), feedOf(...FEED_B), feedOf('8.8.0.0/16,,,,')];
      const alone = feeds.map(() => createIpLookup({ dataDir: dir, clock }));
      const addresses = ['8.8.8.8', '8.8.4.4', '8.8.9.9', '1.1.1.1', '::ffff:8.8.8.8', '2a00:1450:4001::1'];
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.nat(feeds.length - 1), fc.constantFrom(...addresses)), {
            minLength: 1,
            maxLength: 20,
          }),
          async (calls) => {
            const got = await Promise.all(calls.map(([f, a]) => lookup.lookup(ip(a), { geofeed: feeds[f] })));
            const want = await Promise.all(
              calls.map(([f, a]) => (alone[f] as IpLookup).lookup(ip(a), { geofeed: feeds[f] })),
            );
            expect(got).toEqual(want);
          },
        ),
        { numRuns: 60 },
      );
    });

    test('no feed (undefined, null, or one not covering the address) gives exactly the answer without one', async () => {
      const elsewhere = feedOf('5.101.96.0/21,NL,NL-NH,Amsterdam,');
      const address = fc.oneof(
        fc.ipV4(),
        fc.ipV6().filter((s) => parseIp(s) !== null),
        fc.constantFrom('8.8.8.8', '8.8.4.4', '1.1.1.1', '81.2.69.142', '2001:4860:4860::8888'),
      );
      await fc.assert(
        fc.asyncProperty(address, async (s) => {
          const parsed = ip(s);
          const before = await plain.lookup(parsed);
          for (const geofeed of [undefined, null, elsewhere]) {
            const r = await lookup.lookup(parsed, { geofeed });
            expect(JSON.stringify(r)).toBe(JSON.stringify(before));
          }
          expect(before.locationSource).toBe(
            before.found ? ((await data.open()).geofeed.lookup(parsed) ? 'geofeed' : 'database') : null,
          );
        }),
        { numRuns: 150 },
      );
    });
  });

  describe('the locator and GET /v1/geo', () => {
    test('the locator answers as the full lookup with the same feed, accuracy radius and source included', async () => {
      const feed = feedOf('8.8.8.0/24,US,US-CA,Palo Alto,', '8.8.4.0/24,,,,');
      for (const address of ['8.8.8.8', '8.8.4.4', '1.1.1.1', '81.2.69.142', '::ffff:8.8.8.8', '10.0.0.1']) {
        for (const geofeed of [undefined, feed]) {
          const slim = await locator.locate(ip(address), { geofeed });
          const full = await lookup.lookup(ip(address), { geofeed });
          for (const field of [
            'country',
            'region',
            'regionCode',
            'city',
            'latitude',
            'longitude',
            'accuracyRadiusKm',
            'locationSource',
            'asn',
            'found',
          ] as const) {
            expect([address, field, slim[field]]).toEqual([address, field, full[field]]);
          }
        }
      }
      expect(Object.keys(await locator.locate(ip('8.8.8.8'), { geofeed: feed }))).toEqual([
        'ip',
        'country',
        'region',
        'regionCode',
        'city',
        'latitude',
        'longitude',
        'accuracyRadiusKm',
        'locationSource',
        'asn',
        'asOrganization',
        'found',
      ]);
    });

    test('geo: the account feed answers before the edge; the edge before the operator feed and the database', async () => {
      const edge = parseCloudFrontViewerHeaders({
        'cloudfront-viewer-country': 'US',
        'cloudfront-viewer-country-region': 'WA',
        'cloudfront-viewer-city': 'Seattle',
      });
      const feed = feedOf('8.8.8.0/24,US,US-CA,Palo Alto,');
      const own = await lookup.geo(ip('8.8.8.8'), { edge, geofeed: feed });
      expect(own).toMatchObject({ city: 'Palo Alto', locationSource: 'account_geofeed' });
      expect(z.strictObject(GeoResultSchema.shape).parse(own)).toEqual(own);
      expect(await lookup.geo(ip('8.8.4.4'), { edge, geofeed: feed })).toMatchObject({
        city: 'Seattle',
        locationSource: 'edge',
      });
      expect(await lookup.geo(ip('8.8.4.4'), { geofeed: feed })).toMatchObject({
        city: 'Mountain View',
        locationSource: 'database',
      });
      expect(await lookup.geo(ip('8.8.8.8'), { geofeed: feedOf('8.8.8.0/24,,,,'), edge })).toMatchObject({
        country: null,
        locationSource: null,
      });
    });
  });

  describe('merging an entry with a database record that has every field (MaxMind)', () => {
    const BASE: LocationRecord = Object.freeze({
      country: 'US',
      subdivisionName: 'California',
      subdivisionCode: 'CA',
      city: 'San Jose',
      latitude: 37.33,
      longitude: -121.89,
      postalCode: '95141',
      timeZone: 'America/Los_Angeles',
      isInEU: false,
      accuracyRadiusKm: 20,
    });
    let base: LocationRecord | null = BASE;
    const d = {
      location: { schema: 'maxmind', databaseType: 'GeoIP2-City', buildDate: new Date(0), get: () => base },
      geofeed: GeofeedIndex.empty(),
      subdivisions: SubdivisionIndex.empty(),
    } as unknown as LoadedData;
    const merged = (line: string, record: LocationRecord | null = BASE) => {
      base = record;
      const r = locationRecordOf(d, ip('8.8.8.8'), feedOf(line));
      return r && { ...r, source: locationSourceOf(r) };
    };
    const NOTHING = {
      subdivisionName: null,
      subdivisionCode: null,
      city: null,
      latitude: null,
      longitude: null,
      postalCode: null,
      timeZone: null,
      isInEU: null,
      accuracyRadiusKm: null,
    };

    test('the same country: the empty fields from the database, one level at a time', () => {
      expect(merged('8.8.8.0/24,US,,,')).toEqual({ ...BASE, source: 'account_geofeed' });
      expect(merged('8.8.8.0/24,US,US-CA,,')).toEqual({ ...BASE, source: 'account_geofeed' });
      expect(merged('8.8.8.0/24,US,US-CA,,95110')).toEqual({
        ...BASE,
        postalCode: '95110',
        source: 'account_geofeed',
      });
      // Another city: not the database's postal code.
      expect(merged('8.8.8.0/24,US,US-CA,Santa Clara,')).toEqual({
        ...BASE,
        city: 'Santa Clara',
        postalCode: null,
        source: 'account_geofeed',
      });
      // Another region: neither its city, postal code nor zone; its coordinates, as an operator's entry.
      expect(merged('8.8.8.0/24,US,US-NY,,')).toEqual({
        ...BASE,
        subdivisionName: null,
        subdivisionCode: 'NY',
        city: null,
        postalCode: null,
        timeZone: null,
        source: 'account_geofeed',
      });
    });

    test('another country, or no database record: only what the entry says', () => {
      const entryOnly = {
        ...NOTHING,
        country: 'CA',
        subdivisionCode: 'ON',
        city: 'Toronto',
        source: 'account_geofeed',
      };
      expect(merged('8.8.8.0/24,CA,CA-ON,Toronto,')).toEqual(entryOnly);
      expect(merged('8.8.8.0/24,CA,CA-ON,Toronto,', null)).toEqual(entryOnly);
      expect(merged('8.8.8.0/24,US,,,', null)).toEqual({
        ...NOTHING,
        country: 'US',
        source: 'account_geofeed',
      });
      expect(merged('8.8.8.0/24,,,,')).toBeNull();
    });

    test('the database record itself is the database source', () => {
      base = BASE;
      const r = locationRecordOf(d, ip('8.8.8.8'), feedOf('9.9.9.0/24,US,,,'));
      expect(r).toBe(BASE);
      expect(locationSourceOf(BASE)).toBe('database');
    });
  });
});
