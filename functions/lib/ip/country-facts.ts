// Per-country facts that do not depend on the address: continent, currency, calling code and the EU
// flag. They are read from the table computed at development time (country-table.ts), so no lookup
// loads ICU data or a country package, and each country's facts object is built once and kept (the
// full lookup must stay within a third of the raw MMDB rate).
import { COUNTRY_ROWS, type CountryRow } from './country-table.js';
import { isEU } from './regions.js';
import type { Continent, Currency } from './schema.js';

export interface CountryFacts {
  continent: Continent | null;
  currency: Currency | null;
  callingCode: string | null;
  isEUCountry: boolean;
}

const cache = new Map<string, Readonly<CountryFacts>>();

/** The country table's row of an ISO 3166-1 alpha-2 code, or undefined for a code it does not know. */
export function countryRow(country: string): CountryRow | undefined {
  return Object.hasOwn(COUNTRY_ROWS, country) ? COUNTRY_ROWS[country] : undefined;
}

/** Whether the country table knows the code (the set of countries the derived groups cover). */
export function isKnownCountry(country: string): boolean {
  return countryRow(country) !== undefined;
}

/** Facts for an ISO 3166-1 alpha-2 code; unknown codes give nulls (and isEUCountry false). */
export function countryFacts(country: string): Readonly<CountryFacts> {
  let facts = cache.get(country);
  if (facts) return facts;
  const row = countryRow(country);
  const code = row?.[1];
  facts = Object.freeze({
    continent: (row?.[0] ?? null) as Continent | null,
    // The table has a name and a symbol for every currency it lists.
    currency: code ? Object.freeze({ code, name: row[2]!, symbol: row[3]! }) : null,
    callingCode: row?.[9] ?? null,
    isEUCountry: isEU(country),
  });
  cache.set(country, facts);
  return facts;
}
