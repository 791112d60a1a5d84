import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { countries } from 'countries-list';
import { countryFacts } from '../../../functions/lib/ip/country-facts.js';
import { COUNTRY_ROWS, COUNTRY_TABLE_CLDR } from '../../../functions/lib/ip/country-table.js';
import { PROJECT_ROOT } from '../../../infra/project-root.js';
import {
  COUNTRY_TABLE_FILE,
  callingCodeOf,
  cldrVersion,
  countryTableSource,
} from '../../../scripts/data/country-table.js';
import { leftOut } from '../../support/left-out.js';

// The country facts (continent, currency name and symbol, locale group, calling code) are computed
// from countries-list, libphonenumber-js and Node's CLDR data at development time
// (scripts/data/country-table.ts), so the lookup functions load none of them at their cold start.

describe('country table', () => {
  // The names, symbols and formats are CLDR's: a Node with other CLDR data writes other text, so the
  // whole file is compared only under the CLDR version it was written with.
  const sameCldr = cldrVersion() === COUNTRY_TABLE_CLDR;
  if (!sameCldr)
    leftOut(
      `${COUNTRY_TABLE_FILE} against Intl: written with CLDR ${COUNTRY_TABLE_CLDR}, this Node has CLDR ${cldrVersion()}`,
    );
  (sameCldr ? test : test.skip)(
    `${COUNTRY_TABLE_FILE} is what npm run data:countries writes (countries-list and Intl as installed)`,
    () => {
      expect(readFileSync(join(PROJECT_ROOT, COUNTRY_TABLE_FILE), 'utf8')).toBe(countryTableSource());
    },
  );

  test('it has a row for every country of countries-list, with its continent, currency and calling code', () => {
    expect(Object.keys(COUNTRY_ROWS).sort()).toEqual(Object.keys(countries).sort());
    for (const [code, entry] of Object.entries(countries)) {
      const row = COUNTRY_ROWS[code]!;
      expect([code, row[0], row[1], row[9]]).toEqual([
        code,
        entry.continent,
        entry.currency[0] ?? null,
        callingCodeOf(code, entry.phone),
      ]);
      // A listed currency always has its name and symbol (country-facts.ts reads them as such).
      if (row[1]) expect([code, typeof row[2], typeof row[3]]).toEqual([code, 'string', 'string']);
    }
  });

  test("libphonenumber's calling code where countries-list gives area codes or several: +1 for the Dominican Republic, +7 for Kazakhstan", () => {
    expect(countryFacts('DO').callingCode).toBe('+1');
    expect(countryFacts('PR').callingCode).toBe('+1');
    expect(countryFacts('KZ').callingCode).toBe('+7');
    expect(countryFacts('DE').callingCode).toBe('+49');
    expect(countryFacts('ZZ').callingCode).toBeNull();
  });
});
