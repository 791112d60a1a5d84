// Per-country facts that do not depend on the address: continent, currency, calling code and the EU
// flag. They are read from tables computed at development time (country-table.ts, calling-codes.ts),
// so no lookup loads ICU data or a country package, and each country's facts object is built once
// and kept (the full lookup must stay within a third of the raw MMDB rate).
import { CALLING_CODES } from './calling-codes.js';
import { COUNTRY_ROWS } from './country-table.js';
import { isEU } from './regions.js';
import type { Continent, Currency } from './schema.js';

export interface CountryFacts {
  continent: Continent | null;
  currency: Currency | null;
  callingCode: string | null;
  isEUCountry: boolean;
}

const cache = new Map<string, Readonly<CountryFacts>>();

/** Facts for an ISO 3166-1 alpha-2 code; unknown codes give nulls (and isEUCountry false). */
export function countryFacts(country: string): Readonly<CountryFacts> {
  let facts = cache.get(country);
  if (facts) return facts;
  const row = isKnownCountry(country) ? COUNTRY_ROWS[country] : undefined;
  const [continent = null, code = null, name = null, symbol = null] = row ?? [];
  facts = Object.freeze({
    continent: continent as Continent | null,
    currency: code ? Object.freeze({ code, name: name ?? code, symbol: symbol ?? code }) : null,
    callingCode: CALLING_CODES[country] ?? null,
    isEUCountry: isEU(country),
  });
  cache.set(country, facts);
  return facts;
}

/** Whether the country table knows the code (the set of countries the derived groups cover). */
export function isKnownCountry(country: string): boolean {
  return Object.hasOwn(COUNTRY_ROWS, country);
}
