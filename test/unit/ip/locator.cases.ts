import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Clock } from '../../../functions/lib/clock.js';
import { IpData } from '../../../functions/lib/ip/ip-data.js';
import { createIpLocator, type IpLocator } from '../../../functions/lib/ip/locator.js';
import { createIpLookup, type IpLookup } from '../../../functions/lib/ip/lookup.js';
import { type ParsedIp, parseIp } from '../../../functions/lib/ip/parse-ip.js';
import type { SecurityClassifier, SecurityFlags } from '../../../functions/lib/security/classifier.js';
import { makeFixtureDataDir } from './support/fixture-data.js';

// The slim locator of the signup and risk checks must answer exactly what the full lookup answers for
// the fields they share; only the derived groups are left out.

const clock: Clock = { now: () => new Date('2026-07-04T18:00:00Z') };
const ip = (s: string): ParsedIp => {
  const parsed = parseIp(s);
  if (!parsed) throw new Error(`fixture address ${s} does not parse`);
  return parsed;
};

const TOR: SecurityFlags = {
  isTor: true,
  isVpn: false,
  isDatacenter: false,
  isThreat: false,
  isSanctionedNetwork: false,
};
const torEverywhere: SecurityClassifier = { classify: () => TOR };

const SHARED_FIELDS = [
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
] as const;

let dir: string;
let cleanup: () => Promise<void>;
let data: IpData;
let locator: IpLocator;
let lookup: IpLookup;

describe('locator', () => {
  beforeAll(async () => {
    ({ dir, cleanup } = await makeFixtureDataDir());
    data = new IpData(dir, { clock });
    locator = createIpLocator({ data, security: torEverywhere });
    lookup = createIpLookup({ data, clock, security: torEverywhere });
  });

  afterAll(async () => {
    await cleanup();
  });

  describe('IP locator', () => {
    test('8.8.8.8: place and network, no derived groups', async () => {
      expect(await locator.locate(ip('8.8.8.8'))).toEqual({
        ip: '8.8.8.8',
        country: 'US',
        region: 'California',
        regionCode: 'US-CA',
        city: 'Mountain View',
        latitude: expect.closeTo(37.422, 3),
        longitude: expect.closeTo(-122.085, 3),
        accuracyRadiusKm: null,
        locationSource: 'database',
        asn: 15169,
        asOrganization: 'Google LLC',
        found: true,
      });
    });

    test.each([
      '8.8.8.8',
      '1.1.1.1',
      '193.0.6.139',
      '2a00:1450:4001::1',
      '::ffff:1.1.1.1',
      '10.0.0.1',
      '192.0.2.1',
    ])('%s: the shared fields equal the full lookup', async (address) => {
      const slim = await locator.locate(ip(address));
      const full = await lookup.lookup(ip(address));
      for (const field of SHARED_FIELDS) expect([field, slim[field]]).toEqual([field, full[field]]);
    });

    test('private and documentation addresses are not found and carry no network', async () => {
      for (const address of ['10.0.0.1', '192.0.2.1', '::1']) {
        expect(await locator.locate(ip(address))).toEqual({
          ip: address,
          country: null,
          region: null,
          regionCode: null,
          city: null,
          latitude: null,
          longitude: null,
          accuracyRadiusKm: null,
          locationSource: null,
          asn: null,
          asOrganization: null,
          found: false,
        });
      }
    });

    test('security flags only when asked for, from the classifier', async () => {
      expect('security' in (await locator.locate(ip('8.8.8.8')))).toBe(false);
      expect((await locator.locate(ip('8.8.8.8'), { includeSecurity: true })).security).toEqual(TOR);
      expect((await locator.locate(ip('10.0.0.1'), { includeSecurity: true })).security).toEqual(TOR);
    });

    test('a data directory without the city files answers found false instead of failing', async () => {
      const empty = createIpLocator({ data: new IpData('/nonexistent/netintel-ip-data', { clock }) });
      expect(await empty.locate(ip('8.8.8.8'))).toMatchObject({ found: false, country: null, asn: null });
    });

    test('the locator and the lookup share one opened copy of the data', async () => {
      const shared = new IpData(dir, { clock });
      await createIpLocator({ data: shared }).locate(ip('8.8.8.8'));
      const opened = shared.ready;
      expect(opened).not.toBeNull();
      await createIpLookup({ data: shared, clock }).lookup(ip('1.1.1.1'));
      expect(shared.ready).toBe(opened);
    });

    test('any valid address: the shared fields always equal the full lookup', async () => {
      const address = fc.oneof(
        fc.ipV4(),
        fc.ipV6().filter((s) => parseIp(s) !== null),
      );
      await fc.assert(
        fc.asyncProperty(address, async (s) => {
          const parsed = ip(s);
          const slim = await locator.locate(parsed);
          const full = await lookup.lookup(parsed);
          for (const field of SHARED_FIELDS) expect(slim[field]).toEqual(full[field]);
        }),
        { numRuns: 120 },
      );
    });
  });
});
