import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { compilePostalCsv } from '../../../functions/lib/ip/compile/postal.js';
import { PostalIndex } from '../../../functions/lib/ip/postal-index.js';
import { fixtureLines } from './support/fixture-data.js';

async function fixtureIndex() {
  const result = await compilePostalCsv(fixtureLines('postal-codes.csv'));
  return { result, index: new PostalIndex(result.file) };
}

describe('postal-index', () => {
  describe('postal-code index (nearest code within the country, for postalCode)', () => {
    test('the nearest postal point of the same country gives the code', async () => {
      const { index } = await fixtureIndex();
      // DB-IP's coordinates of 8.8.8.8 (Mountain View).
      expect(index.nearest('US', 37.422, -122.085)).toBe('94043');
      expect(index.nearest('NL', 52.3717, 4.88519)).toBe('1016');
      expect(index.nearest('GB', 51.5143, -0.0912)).toBe('EC4N');
    });

    test('a point further than the maximum distance from every code gets null', async () => {
      const { index } = await fixtureIndex();
      // Sacramento is about 150 km from the Mountain View points.
      expect(index.nearest('US', 38.58, -121.49)).toBeNull();
      // 94043 is about 2 km from this point: inside 5 km, outside 1 km.
      expect(index.nearest('US', 37.422, -122.085, 5)).toBe('94043');
      expect(index.nearest('US', 37.422, -122.085, 1)).toBeNull();
    });

    test('only codes of the given country are candidates', async () => {
      const { index } = await fixtureIndex();
      // A point in Amsterdam asked as if it were in Germany: no German code nearby.
      expect(index.nearest('DE', 52.3717, 4.88519)).toBeNull();
    });

    test('a country the index does not cover gets null', async () => {
      const { index } = await fixtureIndex();
      expect(index.nearest('JP', 35.68, 139.76)).toBeNull();
      expect(index.coveredCountries()).not.toContain('JP');
    });

    test('the search crosses the antimeridian', async () => {
      const { index } = await fixtureIndex();
      // EAST lies at 179.99°E, WEST at 179.95°W: 0.06° of longitude apart across the antimeridian.
      expect(index.nearest('FJ', -16.5, -179.99)).toBe('EAST');
      expect(index.nearest('FJ', -16.5, -179.96)).toBe('WEST');
      expect(index.nearest('FJ', -16.5, 179.999)).toBe('EAST');
    });

    test('two codes at the same point resolve to the smaller code, whatever the row order', async () => {
      const { index } = await fixtureIndex();
      expect(index.nearest('AU', -33.8678, 151.2073)).toBe('1001');
      const [header, ...rows] = fixtureLines('postal-codes.csv');
      const reversed = new PostalIndex((await compilePostalCsv([header as string, ...rows.reverse()])).file);
      expect(reversed.nearest('AU', -33.8678, 151.2073)).toBe('1001');
    });

    test('rows without coordinates or code are skipped, duplicates written once', async () => {
      const { result } = await fixtureIndex();
      expect(result.skipped).toBe(2);
      expect(result.points).toBe(18);
      expect(result.countries).toBe(7);
    });

    test('the same rows always compile to the same bytes', async () => {
      const lines = fixtureLines('postal-codes.csv');
      const a = await compilePostalCsv(lines);
      const b = await compilePostalCsv([lines[0] as string, ...lines.slice(1).reverse()]);
      expect(Buffer.compare(a.file, b.file)).toBe(0);
    });

    test('an empty index answers null everywhere', async () => {
      const empty = new PostalIndex((await compilePostalCsv([])).file);
      expect(empty.pointCount).toBe(0);
      expect(empty.nearest('US', 37.422, -122.085)).toBeNull();
    });

    test('a missing column in the header is an error, not an empty index', async () => {
      await expect(compilePostalCsv(['country_code,zipcode,latitude', 'US,1,2'])).rejects.toThrow(
        /longitude/,
      );
    });

    test('lookups never throw and agree with a brute-force nearest search', async () => {
      const { index } = await fixtureIndex();
      const rows = fixtureLines('postal-codes.csv')
        .slice(1)
        .map((l) => l.split(','))
        .filter((f) => f[0] === 'US' && f[1] && f.at(-1));
      const km = (aLat: number, aLon: number, bLat: number, bLon: number) => {
        const dx = (bLon - aLon) * Math.cos((aLat * Math.PI) / 180);
        return Math.hypot(dx, bLat - aLat) * 111.195;
      };
      fc.assert(
        fc.property(
          fc.double({ min: 37, max: 38, noNaN: true }),
          fc.double({ min: -122.5, max: -121.5, noNaN: true }),
          (lat, lon) => {
            const best = rows
              .map((f) => ({ code: f[1] as string, d: km(lat, lon, Number(f.at(-2)), Number(f.at(-1))) }))
              .filter((c) => c.d <= 15)
              .sort((a, b) => a.d - b.d || (a.code < b.code ? -1 : 1))[0];
            expect(index.nearest('US', lat, lon)).toBe(best?.code ?? null);
          },
        ),
        { numRuns: 500 },
      );
    });
  });
});
