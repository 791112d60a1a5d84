import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import type { ManifestEntry } from '../../../functions/lib/data-manifest.js';
import { createIpLookup } from '../../../functions/lib/ip/lookup.js';
import { parseIpManifest } from '../../../functions/lib/ip/manifest.js';
import { parseIp } from '../../../functions/lib/ip/parse-ip.js';
import { DATA_LAYER_DIR } from '../../../layers/build/data-layer.js';
import {
  buildIpData,
  buildOwnDatabase,
  buildPostal,
  buildSubdivisions,
} from '../../../layers/build/ip-data.js';
import { leftOut } from '../../support/left-out.js';
import { ROOT } from './support/fixture-data.js';

const clock = { now: () => new Date('2026-07-04T18:00:00Z') };
/** A full build reads ~230 MB of source data: seconds, not milliseconds. */
const BUILD_TIMEOUT_MS = 120_000;

async function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'netintel-ip-build-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('build-ip-data', () => {
  describe('IP data-layer build', () => {
    // The tests' global setup has just built the layer (test/support/global-setup.mjs), from npm
    // packages alone on a fresh clone: check that build rather than running the same one again.
    test('on a fresh clone (no ../shared/data) it builds from npm packages alone and says what it left out', async () => {
      const layer = join(DATA_LAYER_DIR, 'ip');
      const built = await readManifest(layer);
      expect(built).toBeDefined();
      expect((await readdir(layer)).sort()).toEqual([
        'asn-v4.bin',
        'asn-v6.bin',
        'city-v4.mmdb',
        'city-v6.mmdb',
        'geofeed.json',
        'manifest.json',
        'postal.bin',
        'subdivision-aliases.json',
        'subdivision-pairs.json',
        'subdivisions.json',
      ]);
      const entries = built!;
      expect(entries.map((e) => e.name)).toEqual([
        'dbip-city-lite',
        'asn',
        'subdivisions',
        'geonames-postal-codes',
        'geofeeds',
      ]);
      for (const e of entries) {
        expect(e.version).toBeTruthy();
        expect(e.licence).toBeTruthy();
        expect(e.source).toBeTruthy();
      }
      const [city, asn] = entries;
      expect(city?.count).toBeGreaterThan(100_000);
      expect(asn?.count).toBeGreaterThan(400_000);
      const lookup = createIpLookup({ dataDir: layer, clock });
      expect(await lookup.lookup(parseIp('8.8.8.8')!)).toMatchObject({
        country: 'US',
        regionCode: 'US-CA',
        region: 'California',
        asn: 15169,
      });
      expect(await lookup.manifest()).toEqual(entries);

      // The two steps that read ../shared/data, run without it (the layer above may have had it).
      await withTempDir(async (dir) => {
        const subdivisions = await buildSubdivisions(
          dir,
          new Map([['US', new Set(['California'])]]),
          undefined,
        );
        expect(subdivisions.version).toBe('aliases+date-holidays');
        expect(subdivisions.source).toMatch(/fallback/);
        const postal = await buildPostal(dir, undefined);
        expect(postal).toMatchObject({ count: 0, version: 'none' });
        expect(postal.source).toMatch(/empty index/);
        const fresh = [city!, asn!, subdivisions, postal];
        await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(fresh)}\n`);
        for (const file of ['city-v4.mmdb', 'city-v6.mmdb', 'asn-v4.bin', 'asn-v6.bin'])
          await copyFile(join(layer, file), join(dir, file));
        const withoutShared = createIpLookup({ dataDir: dir, clock });
        expect(await withoutShared.lookup(parseIp('8.8.8.8')!)).toMatchObject({
          regionCode: 'US-CA',
          region: 'California',
          postalCode: null,
        });
      });
    });

    const shared = join(ROOT, '..', 'shared', 'data');
    const present = existsSync(join(shared, 'geonames', 'postal-codes.117-countries.csv.gz'));
    if (!present) leftOut('the IP data build with ../shared/data: not present on this machine');
    (present ? test : test.skip)(
      'with ../shared/data it adds GeoNames postal codes and ISO subdivision names',
      async () => {
        // The tests' global setup has just built the layer (test/support/global-setup.mjs), from
        // ../shared/data when it is here: check that build rather than running the same one again.
        const layer = join(DATA_LAYER_DIR, 'ip');
        const built = await readManifest(layer);
        const check = async (out: string, entries: ManifestEntry[]) => {
          const subdivisions = entries.find((e) => e.name === 'subdivisions');
          const postal = entries.find((e) => e.name === 'geonames-postal-codes');
          expect(subdivisions?.version).toBe(WITH_SHARED_SUBDIVISIONS);
          expect(subdivisions?.count).toBeGreaterThan(2500);
          expect(postal?.count).toBeGreaterThan(500_000);
          const lookup = createIpLookup({ dataDir: out, clock });
          expect(await lookup.lookup(parseIp('8.8.8.8')!)).toMatchObject({
            postalCode: '94043',
            regionCode: 'US-CA',
          });
          expect(await lookup.lookup(parseIp('2a00:1450:4001::1')!)).toMatchObject({
            regionCode: 'DE-HE',
            postalCode: '60261',
          });
          expect(await lookup.lookup(parseIp('133.242.0.1')!)).toMatchObject({
            regionCode: 'JP-13',
            postalCode: null,
          });
        };
        if (built?.some((e) => e.name === 'subdivisions' && e.version === WITH_SHARED_SUBDIVISIONS)) {
          await check(layer, built);
          return;
        }
        await withTempDir(async (dir) => {
          const out = join(dir, 'ip');
          await check(out, await buildIpData(out, { sharedDataDir: shared }));
        });
      },
      BUILD_TIMEOUT_MS,
    );
  });

  const WITH_SHARED_SUBDIVISIONS = 'aliases+iso-codes+geonames-admin1+date-holidays';

  async function readManifest(dir: string): Promise<ManifestEntry[] | undefined> {
    try {
      return parseIpManifest(await readFile(join(dir, 'manifest.json'), 'utf8')).datasets;
    } catch {
      return undefined;
    }
  }
});

describe('build-ip-data: the deployer’s own database files', () => {
  test('a missing file, or a database of the other kind, is refused by name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'netintel-own-'));
    try {
      await expect(
        buildOwnDatabase(dir, join(dir, 'absent.mmdb'), 'location', 'GEO_CITY_MMDB'),
      ).rejects.toThrow(/GEO_CITY_MMDB=.*absent\.mmdb: no such file/);
      const asn = join(ROOT, 'test/fixtures/ip/mmdb/ASN-Test.mmdb');
      await expect(buildOwnDatabase(dir, asn, 'location', 'GEO_CITY_MMDB')).rejects.toThrow(
        /database type "GeoLite2-ASN" is not a City, Country or IPinfo Lite database/,
      );
      const city = join(ROOT, 'test/fixtures/ip/mmdb/City-Test.mmdb');
      await expect(buildOwnDatabase(dir, city, 'network', 'GEO_ASN_MMDB')).rejects.toThrow(
        /is not an ASN or IPinfo Lite database/,
      );
      // Read as the service reads it: the entry names its reader, files, edition and network count.
      expect(await buildOwnDatabase(dir, city, 'location', 'GEO_CITY_MMDB')).toMatchObject({
        role: 'location',
        schema: 'maxmind-city',
        files: ['location.mmdb'],
        edition: 'GeoIP2-City',
        count: 6,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
