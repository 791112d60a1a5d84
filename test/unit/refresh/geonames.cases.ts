import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { strToU8, Zip, ZipDeflate, zipSync } from 'fflate';
import { compileGeonamesPostal } from '../../../functions/lib/ip/compile/postal.js';
import { compileSubdivisions } from '../../../functions/lib/ip/compile/subdivisions.js';
import { PostalIndex } from '../../../functions/lib/ip/postal-index.js';
import { type SourceFetcher, SourceUnavailableError } from '../../../functions/lib/refresh/fetch.js';
import {
  compileGeonames,
  GEONAMES_ADMIN1_TARGET,
  GEONAMES_LIMITS,
  GEONAMES_POSTAL_ENTRY,
  GEONAMES_POSTAL_TARGET,
  type GeonamesDeps,
  geonamesCounts,
  geonamesShrinkRejections,
  ISO_CODES_LIMITS,
  ISO_CODES_TARGET,
  parseAdmin1,
  parseIsoSubdivisions,
  readGeonamesPostal,
  zipEntryLines,
} from '../../../functions/lib/refresh/geonames.js';
import { httpFetcher, mirroredUrl } from '../../../functions/lib/refresh/http-fetcher.js';
import { snapshotFetcher } from '../../../functions/lib/refresh/snapshot-fetcher.js';
import { ISO_3166_2, ISO_CODES_URL, ISO_SUBDIVISIONS } from '../../support/geonames-files.js';

// The GeoNames sources of the refresh: allCountries.zip (postal codes) and admin1CodesASCII.txt,
// with iso-codes' iso_3166-2.json (optional) fetched beside them, read through both fetch adapters, compiled into the postal index and the subdivision table. The
// archives are made here with fflate from a few rows in GeoNames' format.

/** allCountries.txt rows: country, code, place, admin1 name/code, admin2 name/code, admin3 name/code, lat, lon, accuracy. */
const REAL_ROWS = [
  [
    'FR',
    '75001',
    'Paris 01 Louvre',
    'Île-de-France',
    '11',
    'Paris',
    '75',
    'Paris',
    '751',
    '48.8592',
    '2.3417',
    '5',
  ],
  [
    'FR',
    '75004',
    'Paris 04 Hôtel-de-Ville',
    'Île-de-France',
    '11',
    'Paris',
    '75',
    'Paris',
    '751',
    '48.8543',
    '2.3576',
    '5',
  ],
  [
    'FR',
    '75008',
    'Paris 08 Élysée',
    'Île-de-France',
    '11',
    'Paris',
    '75',
    'Paris',
    '751',
    '48.8763',
    '2.3183',
    '5',
  ],
  [
    'FR',
    '13001',
    'Marseille 01',
    "Provence-Alpes-Côte d'Azur",
    '93',
    'Bouches-du-Rhône',
    '13',
    'Marseille',
    '132',
    '43.2999',
    '5.3841',
    '5',
  ],
  ['GB', 'EC1A', 'London', 'England', 'ENG', 'Greater London', '11609024', '', '', '51.5175', '-0.0986', '4'],
  ['DE', '10115', 'Berlin', 'Berlin', '16', '', '00', 'Berlin, Stadt', '11000', '52.5323', '13.3846', '4'],
  ['JP', '100-0001', 'Chiyoda', 'Tokyo To', '40', 'Chiyoda Ku', '1864529', '', '', '35.6850', '139.7514', ''],
  [
    'US',
    '94043',
    'Mountain View',
    'California',
    'CA',
    'Santa Clara',
    '085',
    '',
    '',
    '37.4056',
    '-122.0775',
    '4',
  ],
].map((fields) => fields.join('\t'));

/** Filler around Amsterdam, so that the malformed rows stay under the 5% rule. */
const FILLER_ROWS = Array.from({ length: 100 }, (_, i) =>
  [
    'NL',
    String(1011 + i),
    'Amsterdam',
    'Noord-Holland',
    '07',
    'Amsterdam',
    '0363',
    '',
    '',
    (52.3 + i * 0.001).toFixed(4),
    (4.85 + i * 0.001).toFixed(4),
    '6',
  ].join('\t'),
);

const MALFORMED_ROWS = [
  'FR\t75002\tParis 02 Bourse', // too few columns
  'FR\t75003\tParis 03 Temple\tÎle-de-France\t11\tParis\t75\tParis\t751\t\t\t', // no coordinates
  'DE\t10117\tBerlin\tBerlin\t16\t\t00\t\t\tnorth\t13.3875\t4', // latitude not a number
  'xx\t00000\tNowhere\t\t\t\t\t\t\t10.0\t10.0\t1', // not a country code
];

const POSTAL_TEXT = `${[...REAL_ROWS, REAL_ROWS[0], ...FILLER_ROWS, ...MALFORMED_ROWS].join('\n')}\n`;
const POINTS = REAL_ROWS.length + FILLER_ROWS.length;
const ROWS = POINTS + 1 + MALFORMED_ROWS.length;

const ADMIN1_TEXT = [
  'DE.16\tState of Berlin\tState of Berlin\t2950157',
  'EE.04\tJärvamaa\tJaervamaa\t591961',
  'FR.11\tÎle-de-France\tIle-de-France\t3012874',
  'FR.28\tNormandy\tNormandy\t11071621',
  'GB.ENG\tEngland\tEngland\t6269131',
  'JP.40\tTokyo\tTokyo\t1850144',
  'US.CA\tCalifornia\tCalifornia\t5332921',
  '',
].join('\n');

const POSTAL_ZIP = zipSync({
  'readme.txt': strToU8('GeoNames postal codes, CC BY 4.0\n'),
  [GEONAMES_POSTAL_ENTRY]: strToU8(POSTAL_TEXT),
});

/** A size cap the postal zip is over. */
const CAP = Math.floor(POSTAL_ZIP.byteLength / 2);

const SNAPSHOT_TIME = new Date('2026-11-20T04:00:00Z');

const DEPS = {
  cityPairs: new Map([
    ['FR', new Set(['Ile-de-France'])],
    ['EE', new Set(['Jaervamaa'])],
    // Named only by iso-codes (no GeoNames name, no alias, no holiday list here).
    ['AD', new Set(['Andorra la Vella'])],
  ]),
  aliases: {},
} satisfies Omit<GeonamesDeps, 'fetcher'>;

/** A fetcher answering the admin1 text, the iso-codes text and the given bytes for the postal zip. */
function stubFetcher(
  zip: Uint8Array,
  admin1: string | null = ADMIN1_TEXT,
  iso: string | null = ISO_3166_2,
): SourceFetcher {
  const at = new Date('2026-11-22T06:00:00Z');
  return {
    mode: 'upstream',
    async fetch(target) {
      const text =
        target.id === GEONAMES_ADMIN1_TARGET.id ? admin1 : target.id === ISO_CODES_TARGET.id ? iso : null;
      if (text === null) throw new SourceUnavailableError(`${target.id}: not served`);
      return { text, fetchedAt: at, origin: 'stub' };
    },
    async fetchBytes() {
      return { bytes: zip, fetchedAt: at, origin: 'stub' };
    },
  };
}

/** A zip written in streaming mode: the entry's sizes follow its data, not in its header. */
function streamedZip(entries: Record<string, string>): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((error, data) => {
    if (error) throw error;
    parts.push(data);
  });
  for (const [name, text] of Object.entries(entries)) {
    const file = new ZipDeflate(name);
    zip.add(file);
    file.push(strToU8(text), true);
  }
  zip.end();
  return Buffer.concat(parts);
}

let dir: string;
let server: Server;
let base: string;
const requested: string[] = [];

describe('geonames', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netintel-geonames-'));
    await mkdir(join(dir, 'geonames'));
    await mkdir(join(dir, 'iso-codes'));
    for (const [path, body] of [
      [GEONAMES_POSTAL_TARGET.snapshot, POSTAL_ZIP],
      [GEONAMES_ADMIN1_TARGET.snapshot, ADMIN1_TEXT],
      [ISO_CODES_TARGET.snapshot, ISO_3166_2],
    ] as const) {
      await writeFile(join(dir, path as string), body);
      await utimes(join(dir, path as string), SNAPSHOT_TIME, SNAPSHOT_TIME);
    }
    // A mirror of download.geonames.org under /mirror/, on loopback only.
    server = createServer((req, res) => {
      requested.push(req.url ?? '');
      if (req.url === '/mirror/download.geonames.org/export/zip/allCountries.zip') {
        res.writeHead(200, { 'content-type': 'application/zip' }).end(POSTAL_ZIP);
      } else if (req.url === '/mirror/download.geonames.org/export/dump/admin1CodesASCII.txt') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(ADMIN1_TEXT);
      } else if (req.url === `/mirror/${ISO_CODES_URL.slice('https://'.length)}`) {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(ISO_3166_2);
      } else if (req.url === '/chunked/download.geonames.org/export/zip/allCountries.zip') {
        // No content-length: the cap has to be enforced while reading.
        res.writeHead(200, { 'content-type': 'application/zip' });
        res.write(POSTAL_ZIP.subarray(0, 100));
        res.end(POSTAL_ZIP.subarray(100));
      } else {
        res.writeHead(404).end('Not Found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  describe('postal codes and admin1 names from a snapshot directory', () => {
    test('the postal zip compiles into an index answering the nearest postal code', async () => {
      const result = await compileGeonames({ fetcher: snapshotFetcher(dir), ...DEPS });
      expect(result.failures).toEqual([]);
      expect(result.postal).toMatchObject({
        countries: 6,
        points: POINTS,
        skipped: MALFORMED_ROWS.length,
        rows: ROWS,
      });
      const index = new PostalIndex(result.postal?.file as Buffer);
      expect(index.coveredCountries()).toEqual(['DE', 'FR', 'GB', 'JP', 'NL', 'US']);
      // The Louvre, Notre-Dame, the Arc de Triomphe side of the 8th.
      expect(index.nearest('FR', 48.8606, 2.3376)).toBe('75001');
      expect(index.nearest('FR', 48.853, 2.3499)).toBe('75004');
      expect(index.nearest('FR', 48.8738, 2.295)).toBe('75008');
      expect(index.nearest('GB', 51.5194, -0.1005)).toBe('EC1A');
      expect(index.nearest('DE', 52.5316, 13.3849)).toBe('10115');
      expect(index.nearest('JP', 35.6812, 139.7671)).toBe('100-0001');
      // Paris asked as if in Germany, and a French point far from every code.
      expect(index.nearest('DE', 48.8606, 2.3376)).toBeNull();
      expect(index.nearest('FR', 45.764, 4.8357)).toBeNull();
    });

    test('each file is reported with its count, malformed rows and snapshot time', async () => {
      const result = await compileGeonames({ fetcher: snapshotFetcher(dir), ...DEPS });
      expect(result.reports).toEqual([
        expect.objectContaining({
          id: 'geonames-postal',
          url: 'https://download.geonames.org/export/zip/allCountries.zip',
          status: 'ok',
          optional: false,
          count: POINTS,
          invalid: MALFORMED_ROWS.length,
          fetchedAt: SNAPSHOT_TIME.toISOString(),
        }),
        expect.objectContaining({
          id: 'geonames-admin1',
          url: 'https://download.geonames.org/export/dump/admin1CodesASCII.txt',
          status: 'ok',
          count: 7,
          invalid: 0,
          fetchedAt: SNAPSHOT_TIME.toISOString(),
        }),
        expect.objectContaining({
          id: 'iso-codes',
          url: ISO_CODES_URL,
          status: 'ok',
          optional: true,
          count: ISO_SUBDIVISIONS.length,
          invalid: 0,
          fetchedAt: SNAPSHOT_TIME.toISOString(),
        }),
      ]);
      expect(geonamesCounts(result)).toEqual({ postalPoints: POINTS, postalCountries: 6, admin1: 7 });
    });

    test('admin1 names feed the subdivision table: canonical names, and a bridge from a transliteration', async () => {
      const result = await compileGeonames({ fetcher: snapshotFetcher(dir), ...DEPS });
      const table = result.subdivisions?.table;
      expect(table?.source).toContain('geonames-admin1');
      expect(table?.byName.FR).toEqual({ 'Ile-de-France': 'IDF' });
      expect(table?.names['FR-IDF']).toBe('Île-de-France');
      // "Jaervamaa" (GeoNames' ASCII name) reaches the ISO name Järvamaa only through GeoNames.
      expect(table?.byName.EE).toEqual({ Jaervamaa: '52' });
      expect(table?.names['EE-52']).toBe('Järvamaa');
      const iso = [...ISO_SUBDIVISIONS];
      const without = compileSubdivisions(DEPS.cityPairs, { iso, aliases: {} });
      expect(without.unmapped).toEqual(['EE\tJaervamaa']);
    });

    test('a missing admin1 file is a rejection; the postal index is still compiled but not to be published', async () => {
      const empty = await mkdtemp(join(tmpdir(), 'netintel-geonames-'));
      try {
        await mkdir(join(empty, 'geonames'));
        await writeFile(join(empty, GEONAMES_POSTAL_TARGET.snapshot as string), POSTAL_ZIP);
        const result = await compileGeonames({ fetcher: snapshotFetcher(empty), ...DEPS });
        expect(result.failures).toEqual([
          { id: 'geonames-admin1', reason: expect.stringContaining('SourceUnavailableError') },
        ]);
        expect(result.subdivisions).toBeNull();
        expect(result.reports[1]).toMatchObject({ status: 'unavailable', count: 0 });
        // The optional iso-codes list, absent too, is reported and not a rejection.
        expect(result.reports[2]).toMatchObject({ id: 'iso-codes', status: 'unavailable', optional: true });
        expect(geonamesCounts(result)).toBeNull();
      } finally {
        await rm(empty, { recursive: true, force: true });
      }
    });
  });

  describe('through the upstream fetcher and a mirror', () => {
    test('the mirror option rewrites https://host/path?query under the mirror', () => {
      expect(
        mirroredUrl(
          'https://download.geonames.org/export/zip/allCountries.zip?x=1',
          'http://127.0.0.1:8080/m/',
        ),
      ).toBe('http://127.0.0.1:8080/m/download.geonames.org/export/zip/allCountries.zip?x=1');
      expect(mirroredUrl('https://example.org/a', undefined)).toBe('https://example.org/a');
    });

    test('both files are fetched from the mirror and give the same result as the snapshot', async () => {
      requested.length = 0;
      const at = new Date('2026-11-22T06:00:00Z');
      const fetcher = httpFetcher({ mirror: `${base}/mirror/`, now: () => at });
      const result = await compileGeonames({ fetcher, ...DEPS });
      expect(result.failures).toEqual([]);
      expect(requested.sort()).toEqual([
        '/mirror/download.geonames.org/export/dump/admin1CodesASCII.txt',
        '/mirror/download.geonames.org/export/zip/allCountries.zip',
        '/mirror/salsa.debian.org/iso-codes-team/iso-codes/-/raw/main/data/iso_3166-2.json',
      ]);
      // Reports name the upstream, not the mirror.
      expect(result.reports.map((r) => [r.url, r.fetchedAt])).toEqual([
        [GEONAMES_POSTAL_TARGET.url, at.toISOString()],
        [GEONAMES_ADMIN1_TARGET.url, at.toISOString()],
        [ISO_CODES_URL, at.toISOString()],
      ]);
      const fromSnapshot = await compileGeonames({ fetcher: snapshotFetcher(dir), ...DEPS });
      expect(Buffer.compare(result.postal?.file as Buffer, fromSnapshot.postal?.file as Buffer)).toBe(0);
      expect(result.subdivisions?.table).toEqual(fromSnapshot.subdivisions?.table);
    });

    test('fetchBytes gives the exact bytes and names the mirrored URL as origin', async () => {
      const fetched = await httpFetcher({ mirror: `${base}/mirror` }).fetchBytes(GEONAMES_POSTAL_TARGET);
      expect(Buffer.compare(fetched.bytes, POSTAL_ZIP)).toBe(0);
      expect(fetched.origin).toBe(`${base}/mirror/download.geonames.org/export/zip/allCountries.zip`);
    });

    test.each([
      ['declared in content-length', 'mirror'],
      ['found while reading a chunked body', 'chunked'],
    ])('fetchBytes refuses a body over the size cap (%s)', async (_, prefix) => {
      const fetcher = httpFetcher({ mirror: `${base}/${prefix}`, maxBytes: CAP });
      await expect(fetcher.fetchBytes(GEONAMES_POSTAL_TARGET)).rejects.toThrow(SourceUnavailableError);
      await expect(fetcher.fetchBytes(GEONAMES_POSTAL_TARGET)).rejects.toThrow(`${CAP}-byte cap`);
      const under = httpFetcher({ mirror: `${base}/${prefix}`, maxBytes: POSTAL_ZIP.byteLength });
      expect((await under.fetchBytes(GEONAMES_POSTAL_TARGET)).bytes.byteLength).toBe(POSTAL_ZIP.byteLength);
    });

    test('an HTTP error or a cap overrun is a rejection of the refresh, not a throw', async () => {
      const missing = await compileGeonames({ fetcher: httpFetcher({ mirror: `${base}/nothing` }), ...DEPS });
      expect(missing.failures.map((f) => f.id)).toEqual(['geonames-postal', 'geonames-admin1']);
      expect(missing.failures[0]?.reason).toContain('HTTP 404');
      const capped = await compileGeonames({
        fetcher: httpFetcher({ mirror: `${base}/mirror`, maxBytes: CAP }),
        ...DEPS,
      });
      expect(capped.failures).toEqual([
        { id: 'geonames-postal', reason: expect.stringContaining(`${CAP}-byte cap`) },
      ]);
      expect(capped.postal).toBeNull();
    });
  });

  describe('the iso-codes list', () => {
    const compileWith = (iso: string | null, isoLimits = ISO_CODES_LIMITS) =>
      compileGeonames({ fetcher: stubFetcher(POSTAL_ZIP, ADMIN1_TEXT, iso), ...DEPS, isoLimits });

    test('is fetched beside the admin1 names and used: a subdivision only iso-codes names gets its code and name', async () => {
      const asked: string[] = [];
      const base = stubFetcher(POSTAL_ZIP);
      const fetcher: SourceFetcher = {
        ...base,
        fetch: (target) => {
          asked.push(target.url);
          return base.fetch(target);
        },
      };
      const result = await compileGeonames({ fetcher, ...DEPS });
      expect(asked.sort()).toEqual([GEONAMES_ADMIN1_TARGET.url, ISO_CODES_URL]);
      expect(result.failures).toEqual([]);
      const table = result.subdivisions?.table;
      expect(table?.source).toBe('aliases+iso-codes+geonames-admin1');
      expect(table?.byName.AD).toEqual({ 'Andorra la Vella': '07' });
      expect(table?.names['AD-07']).toBe('Andorra la Vella');
      // Top-level codes no location name uses are named too; iso-codes' editorial notes are cut.
      expect(table?.names['GB-WLS']).toBe('Wales');
      expect(table?.names['AZ-BAB']).toBeUndefined();
      expect(table?.byName.FR).toEqual({ 'Ile-de-France': 'IDF' });
    });

    test.each([
      ['an HTML error page', '<html><body>502 Bad Gateway</body></html>', 'not JSON'],
      ['JSON without the list', '{"3166-1": []}', 'no "3166-2" list'],
      ['a truncated file', ISO_3166_2.slice(0, 400), 'not JSON'],
      ['an empty list', '{"3166-2": []}', 'no valid entries'],
      [
        'a list of a handful',
        JSON.stringify({ '3166-2': ISO_SUBDIVISIONS.slice(0, 5) }),
        '5 valid entries, fewer than 20',
      ],
      [
        'codes and names that are not subdivisions',
        JSON.stringify({
          '3166-2': [
            ...ISO_SUBDIVISIONS,
            ...Array.from({ length: 10 }, (_, i) => ({ code: `<script>${i}`, name: 'x' })),
            { code: 'FR-IDF1', name: 'Île-de-France' },
            { code: 'US-CA', name: '<img src=x onerror=alert(1)>' },
            { code: 'US-NY', name: 'New\u0000York' },
            { code: 'US-TX', name: 'T'.repeat(500) },
            { code: 'AZ-BAB', name: 'Babək', parent: '../../etc' },
            { code: 'DE-BE', name: 42 },
            null,
            'AD-02',
          ],
        }),
        'records are malformed',
      ],
      [
        'more entries than any real list',
        JSON.stringify({ '3166-2': Array.from({ length: 20_001 }, () => ISO_SUBDIVISIONS[0]) }),
        '20001 entries, more than 20000',
      ],
      ['a file over the size limit', `{"3166-2": [], "pad": "${'x'.repeat(4 * 2 ** 20)}"}`, 'over the'],
    ])('%s is refused, and the refresh goes on without it', async (_, text, reason) => {
      const result = await compileWith(text);
      expect(result.failures).toEqual([]);
      const report = result.reports.find((r) => r.id === 'iso-codes');
      expect(report).toMatchObject({ status: 'unavailable', optional: true, count: 0 });
      expect(report?.note).toContain('SourceFormatError');
      expect(report?.note).toContain(reason);
      expect(report?.note).toContain('compiled without it');
      // The table is compiled from the other sources: published, without iso-codes' codes.
      expect(result.subdivisions?.table.source).toBe('aliases+geonames-admin1');
      expect(result.subdivisions?.table.byName.AD).toBeUndefined();
      expect(result.postal).not.toBeNull();
      expect(geonamesCounts(result)).not.toBeNull();
    });

    test('an upstream that does not answer is not a rejection either', async () => {
      const result = await compileWith(null);
      expect(result.failures).toEqual([]);
      expect(result.reports[2]).toMatchObject({
        id: 'iso-codes',
        status: 'unavailable',
        note: expect.stringContaining('SourceUnavailableError'),
      });
      expect(result.subdivisions).not.toBeNull();
    });

    test('parseIsoSubdivisions keeps type and parent, counts malformed entries and trims names', () => {
      const parsed = parseIsoSubdivisions(
        JSON.stringify({
          '3166-2': [
            ...ISO_SUBDIVISIONS,
            { code: 'ad-02', name: 'Canillo' },
            { code: 'AD-9999', name: 'Nowhere' },
            { code: 'EE-37', name: '   ' },
            { code: 'US-WY', name: ' Wyoming ', type: 'State' },
          ],
        }),
      );
      expect(parsed.invalid).toBe(3);
      expect(parsed.entries).toHaveLength(ISO_SUBDIVISIONS.length + 1);
      expect(parsed.entries).toContainEqual({ code: 'US-WY', name: 'Wyoming', type: 'State' });
      expect(parsed.entries).toContainEqual({ code: 'AZ-BAB', name: 'Babək', parent: 'NX', type: 'Rayon' });
      expect(parsed.entries).toContainEqual({
        code: 'GB-LND',
        name: 'London, City of',
        parent: 'GB-ENG',
        type: 'City corporation',
      });
    });
  });

  describe('archives that are not what they should be', () => {
    const failureOf = async (zip: Uint8Array, limits = GEONAMES_LIMITS) => {
      const read = await readGeonamesPostal(stubFetcher(zip), limits);
      expect(read.postal).toBeNull();
      expect(read.report).toMatchObject({ id: 'geonames-postal', status: 'unavailable', count: 0 });
      return read.failure?.reason;
    };

    test('a file that is not a zip archive', async () => {
      expect(await failureOf(strToU8('<html><body>Service unavailable</body></html>'))).toMatch(
        /SourceFormatError: .*no allCountries\.txt/,
      );
      // An empty body is said to be one (it read as an archive without its entry).
      expect(await failureOf(new Uint8Array(0))).toMatch(/the body is empty, not a zip archive/);
    });

    test('a truncated archive', async () => {
      const zip = zipSync({ [GEONAMES_POSTAL_ENTRY]: strToU8(POSTAL_TEXT.repeat(20)) }, { level: 0 });
      expect(await failureOf(zip.subarray(0, Math.floor(zip.byteLength / 2)))).toMatch(/SourceFormatError/);
    });

    test('a damaged deflate stream', async () => {
      const zip = zipSync({ [GEONAMES_POSTAL_ENTRY]: strToU8(POSTAL_TEXT) });
      const damaged = zip.slice();
      damaged.fill(0xff, 60, 400);
      expect(await failureOf(damaged)).toMatch(/SourceFormatError/);
    });

    test('an archive without allCountries.txt', async () => {
      const zip = zipSync({ 'US.txt': strToU8(REAL_ROWS.join('\n')) });
      expect(await failureOf(zip)).toContain('the zip archive has no allCountries.txt');
    });

    test('an entry over the size limit, declared in its header or found while inflating', async () => {
      const limits = { ...GEONAMES_LIMITS, maxEntryBytes: 4096 };
      expect(await failureOf(POSTAL_ZIP, limits)).toContain('over the 4096-byte limit');
      const streamed = streamedZip({ [GEONAMES_POSTAL_ENTRY]: POSTAL_TEXT });
      expect(await failureOf(streamed, limits)).toContain('inflates to more than 4096 bytes');
      // The same streamed archive under the default limit reads in full.
      const read = await readGeonamesPostal(stubFetcher(streamed));
      expect(read.postal?.points).toBe(POINTS);
    });

    test('more rows than the row limit', async () => {
      expect(await failureOf(POSTAL_ZIP, { ...GEONAMES_LIMITS, maxRows: 50 })).toContain('more than 50 rows');
    });

    test('a line longer than the line limit', async () => {
      const zip = zipSync({ [GEONAMES_POSTAL_ENTRY]: strToU8('x'.repeat(100_000)) });
      expect(await failureOf(zip)).toContain('line longer than');
    });

    test('too many malformed rows, or none valid', async () => {
      const mostlyBad = [...REAL_ROWS, ...MALFORMED_ROWS].join('\n');
      expect(await failureOf(zipSync({ [GEONAMES_POSTAL_ENTRY]: strToU8(mostlyBad) }))).toContain(
        'records are malformed',
      );
      expect(await failureOf(zipSync({ [GEONAMES_POSTAL_ENTRY]: strToU8('') }))).toContain(
        'no valid entries',
      );
    });
  });

  describe('the parts', () => {
    test('zipEntryLines streams the entry line by line, last line without a newline included', () => {
      const zip = zipSync({ [GEONAMES_POSTAL_ENTRY]: strToU8('a\nbé\r\n\nc') });
      expect([...zipEntryLines(zip, GEONAMES_POSTAL_ENTRY)]).toEqual(['a', 'bé\r', '', 'c']);
    });

    test('compileGeonamesPostal reads the 12-column format directly', async () => {
      const result = await compileGeonamesPostal(POSTAL_TEXT.split('\n'));
      expect(result).toMatchObject({
        points: POINTS,
        skipped: MALFORMED_ROWS.length,
        rows: ROWS,
        countries: 6,
      });
    });

    test('a row whose code is not a plausible postal code is skipped, never served', async () => {
      const row = (code: string, lat: string) =>
        ['FR', code, 'X', '', '', '', '', '', '', lat, '2.35', '5'].join('\t');
      const rows = [
        row('<script>alert(1)</script>', '48.80'),
        row('75"001', '48.81'),
        row('75001\u0007', '48.82'),
        row('-75001', '48.83'),
        row('75001 CEDEX 01 PARIS', '48.84'), // 20 characters
        row('78078 CITYSSIMO', '48.85'), // the longest real ones: kept
        row('1000-001', '48.86'),
      ];
      const result = await compileGeonamesPostal(rows);
      expect(result).toMatchObject({ rows: 7, skipped: 5, points: 2 });
      const index = new PostalIndex(result.file);
      expect(index.nearest('FR', 48.85, 2.35)).toBe('78078 CITYSSIMO');
      expect(index.nearest('FR', 48.86, 2.35)).toBe('1000-001');
      expect(index.nearest('FR', 48.8, 2.35)).toBe('78078 CITYSSIMO');
    });

    test('parseAdmin1 counts malformed lines and skips blank ones', () => {
      const parsed = parseAdmin1(`${ADMIN1_TEXT}\r\nfr.11\tlower case\t\t1\nGarbage\nUS.NY\t\t\t5128638\n\n`);
      expect(parsed.invalid).toBe(3);
      expect(parsed.entries).toHaveLength(7);
      expect(parsed.entries).toContainEqual({
        code: 'FR.11',
        name: 'Île-de-France',
        asciiName: 'Ile-de-France',
      });
    });

    test('the shrink guard refuses a refresh that lost more than half of a count', () => {
      const current = { postalPoints: 1_500_000, postalCountries: 120, admin1: 3_864 };
      expect(geonamesShrinkRejections(current, { ...current, postalPoints: 700_000 })).toEqual([
        { id: 'geonames-postal', reason: 'postal points shrank from 1500000 to 700000 (more than 50% lost)' },
      ]);
      expect(geonamesShrinkRejections(current, { ...current, postalCountries: 59, admin1: 1_000 })).toEqual([
        { id: 'geonames-postal', reason: expect.stringContaining('postal countries') },
        { id: 'geonames-admin1', reason: expect.stringContaining('admin1 names') },
      ]);
      expect(geonamesShrinkRejections(current, { ...current, postalPoints: 760_000 })).toEqual([]);
      expect(geonamesShrinkRejections(null, { postalPoints: 1, postalCountries: 1, admin1: 1 })).toEqual([]);
    });
  });
});
