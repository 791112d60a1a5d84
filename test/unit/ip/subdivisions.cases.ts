import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import {
  compileSubdivisions,
  type IsoSubdivision,
  nameKeys,
  normalizeName,
} from '../../../functions/lib/ip/compile/subdivisions.js';
import { SubdivisionIndex } from '../../../functions/lib/ip/subdivision.js';
import { dateHolidayStates, readSubdivisionAliases } from '../../../layers/build/ip-data.js';
import { leftOut } from '../../support/left-out.js';
import { ROOT } from './support/fixture-data.js';

/** The curated alias table the layer build passes in (layers/build/subdivision-aliases.json). */
const aliases = await readSubdivisionAliases();

const pairs = (entries: Record<string, string[]>) =>
  new Map(Object.entries(entries).map(([c, names]) => [c, new Set(names)]));

const ISO: IsoSubdivision[] = [
  { code: 'DE-BY', name: 'Bayern', type: 'Land' },
  { code: 'DE-HE', name: 'Hessen', type: 'Land' },
  { code: 'RU-MOW', name: 'Moskva', type: 'Autonomous city' },
  { code: 'RU-MOS', name: "Moskovskaja oblast'", type: 'Administrative region' },
  { code: 'SE-AB', name: 'Stockholms län [SE-01]', type: 'County' },
  { code: 'BE-VLG', name: 'Vlaams Gewest', type: 'Region' },
  { code: 'BE-VAN', name: 'Antwerpen', type: 'Province', parent: 'VLG' },
  { code: 'XA-01', name: 'North', type: 'Region' },
  { code: 'XA-02', name: 'North', type: 'Region' },
  { code: 'MX-MEX', name: 'México', type: 'State' },
  { code: 'MX-CMX', name: 'Ciudad de México', type: 'Federal entity' },
];

describe('subdivisions', () => {
  describe('subdivision table (DB-IP state name → ISO 3166-2 code and canonical name)', () => {
    test('a name spelled like the ISO name maps directly, accents and case aside', () => {
      const { table } = compileSubdivisions(pairs({ DE: ['BAYERN', 'Hessen'] }), { iso: ISO, aliases: {} });
      expect(table.byName.DE).toEqual({ BAYERN: 'BY', Hessen: 'HE' });
    });

    test('an English exonym maps through the curated aliases', () => {
      const { table } = compileSubdivisions(pairs({ DE: ['Bavaria'] }), { iso: ISO, aliases });
      expect(table.byName.DE?.Bavaria).toBe('BY');
    });

    test('a GeoNames name bridges a DB-IP name to the ISO code and becomes the canonical name', () => {
      const { table } = compileSubdivisions(pairs({ DE: ['Hesse'] }), {
        iso: ISO,
        aliases: {},
        geonames: [{ code: 'DE.05', name: 'Hessen', asciiName: 'Hesse' }],
      });
      expect(table.byName.DE?.Hesse).toBe('HE');
      expect(table.names['DE-HE']).toBe('Hessen');
    });

    test('generic words do not merge a city with its surrounding region', () => {
      const { table } = compileSubdivisions(pairs({ RU: ['Moscow', 'Moscow Oblast'] }), {
        iso: ISO,
        aliases,
      });
      expect(table.byName.RU).toEqual({ Moscow: 'MOW', 'Moscow Oblast': 'MOS' });
    });

    test('a whole-name match beats an alias that only matches loosely', () => {
      // "Mexico City" loses its generic "City" in the loose form; "Mexico" must stay the state.
      const { table } = compileSubdivisions(pairs({ MX: ['Mexico', 'Mexico City'] }), { iso: ISO, aliases });
      expect(table.byName.MX).toEqual({ Mexico: 'MEX', 'Mexico City': 'CMX' });
    });

    test('a name that matches two codes is left unmapped rather than guessed', () => {
      const result = compileSubdivisions(pairs({ XA: ['North'] }), { iso: ISO, aliases: {} });
      expect(result.table.byName.XA).toBeUndefined();
      expect(result.unmapped).toEqual(['XA\tNorth']);
    });

    test('a top-level subdivision wins over a lower-level one of the same name', () => {
      const iso: IsoSubdivision[] = [
        { code: 'BD-C', name: 'Dhaka', type: 'Division' },
        { code: 'BD-13', name: 'Dhaka', type: 'District', parent: 'C' },
      ];
      const { table } = compileSubdivisions(pairs({ BD: ['Dhaka'] }), { iso, aliases: {} });
      expect(table.byName.BD?.Dhaka).toBe('C');
    });

    test('an alias to a code iso-codes does not list is dropped', () => {
      const { table } = compileSubdivisions(pairs({ DE: ['Bavaria'] }), {
        iso: ISO,
        aliases: { DE: { Bavaria: 'XX' } },
      });
      expect(table.byName.DE).toBeUndefined();
    });

    test('without iso-codes (fresh clone) date-holidays state lists and the aliases are the source', () => {
      const result = compileSubdivisions(
        pairs({ US: ['California'], DE: ['Bavaria', 'Hesse'], NL: ['North Holland'], BR: ['Maranhao'] }),
        { holidays: dateHolidayStates(), aliases },
      );
      expect(result.table.source).toBe('aliases+date-holidays');
      expect(result.table.byName).toEqual({
        BR: { Maranhao: 'MA' },
        DE: { Bavaria: 'BY', Hesse: 'HE' },
        NL: { 'North Holland': 'NH' },
        US: { California: 'CA' },
      });
      expect(result.table.names['US-CA']).toBe('California');
      expect(result.table.names['BR-MA']).toBe('Maranhão');
    });

    test('the same input always gives the same table', () => {
      const input = pairs({ US: ['California', 'Texas'], DE: ['Hesse', 'Bavaria'] });
      const reversed = pairs({ DE: ['Bavaria', 'Hesse'], US: ['Texas', 'California'] });
      const a = compileSubdivisions(input, { holidays: dateHolidayStates(), aliases });
      const b = compileSubdivisions(reversed, { holidays: dateHolidayStates(), aliases });
      expect(JSON.stringify(a.table)).toBe(JSON.stringify(b.table));
    });

    test('names are normalised to lowercase ASCII words', () => {
      expect(normalizeName('Baden-Württemberg')).toBe('baden wurttemberg');
      expect(normalizeName('Łódź Voivodeship')).toBe('lodz voivodeship');
      expect(normalizeName('Stockholms län [SE-01]')).toBe('stockholms lan');
      expect(nameKeys('Zabaykalskiy (Transbaikal) Kray')).not.toContain('kray');
    });
  });

  describe('subdivision index (runtime)', () => {
    const index = new SubdivisionIndex({
      version: 1,
      source: 'test',
      byName: { US: { California: 'CA' } },
      names: { 'US-CA': 'California', 'US-TX': 'Texas' },
    });

    test('a mapped DB-IP name gives the ISO code and the canonical name', () => {
      expect(index.resolve('US', 'California')).toEqual({ code: 'US-CA', name: 'California' });
    });

    test('an unmapped pair gives null', () => {
      expect(index.resolve('US', 'Atlantis')).toBeNull();
      expect(index.resolve('CA', 'California')).toBeNull();
    });

    test('a code is named even when no DB-IP name maps to it (edge-supplied region codes)', () => {
      expect(index.nameOf('US-TX')).toBe('Texas');
      expect(index.nameOf('US-ZZ')).toBeNull();
    });
  });

  describe('subdivision table from ../shared/data (only where that folder exists)', () => {
    const shared = join(ROOT, '..', 'shared', 'data');
    const present = existsSync(join(shared, 'iso-codes', 'iso_3166-2.json'));
    if (!present) leftOut('the iso-codes and GeoNames subdivision check: ../shared/data/iso-codes is absent');
    (present ? test : test.skip)(
      'iso-codes and GeoNames map the biggest DB-IP regions of Europe',
      async () => {
        const iso = JSON.parse(await readFile(join(shared, 'iso-codes', 'iso_3166-2.json'), 'utf8'))[
          '3166-2'
        ];
        const geonames = (await readFile(join(shared, 'geonames', 'admin1CodesASCII.txt'), 'utf8'))
          .split('\n')
          .map((l) => l.split('\t'))
          .filter((f) => f.length >= 3)
          .map(([code, name, asciiName]) => ({
            code: code as string,
            name: name as string,
            asciiName: asciiName as string,
          }));
        const { table } = compileSubdivisions(
          pairs({
            DE: ['North Rhine-Westphalia', 'Baden-Wurttemberg'],
            FR: ['Ile-de-France', 'Rhone-Alpes'],
            IT: ['Lombardy'],
            GB: ['England', 'Scotland'],
            ES: ['Madrid'],
          }),
          { iso, geonames, holidays: dateHolidayStates(), aliases },
        );
        expect(table.byName).toEqual({
          DE: { 'Baden-Wurttemberg': 'BW', 'North Rhine-Westphalia': 'NW' },
          ES: { Madrid: 'MD' },
          FR: { 'Ile-de-France': 'IDF', 'Rhone-Alpes': 'ARA' },
          GB: { England: 'ENG', Scotland: 'SCT' },
          IT: { Lombardy: '25' },
        });
        expect(table.names['FR-IDF']).toBe('Île-de-France');
      },
    );
  });
});
