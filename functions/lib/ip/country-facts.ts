// Per-country facts that do not depend on the address: continent, currency, calling code and the EU
// flag. Computed once per country and kept (the full lookup must stay within a third of the raw MMDB
// rate, so nothing here runs per request after the first).
import { countries, type TCountryCode } from 'countries-list';
import { CALLING_CODES } from './calling-codes.js';
import { suggestedLocaleOf } from './locale.js';
import { isEU } from './regions.js';
import type { Continent, Currency } from './schema.js';

export interface CountryFacts {
  continent: Continent | null;
  currency: Currency | null;
  callingCode: string | null;
  isEUCountry: boolean;
}

const CONTINENTS: ReadonlySet<string> = new Set(['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA']);
const currencyNames = new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'code' });
const cache = new Map<string, Readonly<CountryFacts>>();

function currencyOf(country: string, code: string | undefined): Currency | null {
  if (!code) return null;
  let symbol = code;
  try {
    // The symbol as the country itself writes it: "$" in en-CA rather than "CA$".
    const parts = new Intl.NumberFormat(suggestedLocaleOf(country) ?? 'en', {
      style: 'currency',
      currency: code,
    }).formatToParts(1);
    symbol = parts.find((p) => p.type === 'currency')?.value ?? code;
  } catch {
    // An unknown currency code keeps the code as its symbol.
  }
  return Object.freeze({ code, name: currencyNames.of(code) ?? code, symbol });
}

/** Facts for an ISO 3166-1 alpha-2 code; unknown codes give nulls (and isEUCountry false). */
export function countryFacts(country: string): Readonly<CountryFacts> {
  let facts = cache.get(country);
  if (facts) return facts;
  const entry = (countries as Record<string, (typeof countries)[TCountryCode] | undefined>)[country];
  const continent = entry && CONTINENTS.has(entry.continent) ? (entry.continent as Continent) : null;
  facts = Object.freeze({
    continent,
    currency: entry ? currencyOf(country, entry.currency[0]) : null,
    // Computed from libphonenumber-js at development time (calling-codes.ts).
    callingCode: CALLING_CODES[country] ?? null,
    isEUCountry: isEU(country),
  });
  cache.set(country, facts);
  return facts;
}

/** Whether countries-list knows the code (the set of countries the derived groups cover). */
export function isKnownCountry(country: string): boolean {
  return Object.hasOwn(countries, country);
}
