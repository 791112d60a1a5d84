import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { countries } from 'countries-list';
import { COUNTRY_ROWS, COUNTRY_TABLE_CLDR } from '../../../functions/lib/ip/country-table.js';
import { PROJECT_ROOT } from '../../../infra/project-root.js';
import { COUNTRY_TABLE_FILE, cldrVersion, countryTableSource } from '../../../scripts/data/country-table.js';
import { leftOut } from '../../support/left-out.js';

// The country facts (continent, currency name and symbol, locale group) are computed from
// countries-list and Node's CLDR data at development time (scripts/data/country-table.ts), so the
// lookup functions load neither the package nor ICU's data at their cold start.

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

  test('it has a row for every country of countries-list, with its continent and currency', () => {
    expect(Object.keys(COUNTRY_ROWS).sort()).toEqual(Object.keys(countries).sort());
    for (const [code, entry] of Object.entries(countries)) {
      const [continent, currency] = COUNTRY_ROWS[code]!;
      expect([code, continent, currency]).toEqual([code, entry.continent, entry.currency[0] ?? null]);
    }
  });
});
