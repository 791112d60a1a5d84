import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { countryFacts } from '../../../functions/lib/ip/country-facts.js';
import { PROJECT_ROOT } from '../../../infra/project-root.js';
import { CALLING_CODES_FILE, callingCodesSource } from '../../../scripts/data/calling-codes.js';

// The calling codes are computed from libphonenumber-js at development time (scripts/data/calling-codes.ts),
// so the lookup functions do not carry its metadata.

describe('country calling codes', () => {
  test(`${CALLING_CODES_FILE} is what npm run data:calling-codes writes (libphonenumber-js and countries-list as installed)`, () => {
    expect(readFileSync(join(PROJECT_ROOT, CALLING_CODES_FILE), 'utf8')).toBe(callingCodesSource());
  });

  test("libphonenumber's code where countries-list gives area codes or several: +1 for the Dominican Republic, +7 for Kazakhstan", () => {
    expect(countryFacts('DO').callingCode).toBe('+1');
    expect(countryFacts('PR').callingCode).toBe('+1');
    expect(countryFacts('KZ').callingCode).toBe('+7');
    expect(countryFacts('DE').callingCode).toBe('+49');
    expect(countryFacts('ZZ').callingCode).toBeNull();
  });
});
