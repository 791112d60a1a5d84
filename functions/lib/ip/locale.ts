// The locale group: a country's default conventions, from the CLDR data of Node's Intl and the
// language list of countries-list, computed at development time (country-table.ts).
// suggestedLocale is always the country's own default: no Accept-Language header is read (the
// field's description in /docs says so).
import { countryRow } from './country-facts.js';
import type { LocaleInfo } from './schema.js';

/** CLDR measurementSystem "US": the countries that still use US customary units. */
const IMPERIAL: ReadonlySet<string> = new Set(['US', 'LR', 'MM']);

const cache = new Map<string, Readonly<LocaleInfo> | null>();

/** The locale group for a country, or null for a code the country table does not know. Cached. */
export function localeFor(country: string): Readonly<LocaleInfo> | null {
  const cached = cache.get(country);
  if (cached !== undefined) return cached;
  const row = countryRow(country);
  let info: Readonly<LocaleInfo> | null = null;
  if (row) {
    const [, , , , suggestedLocale, languages, dateFormat, timeFormat, firstDayOfWeek] = row;
    info = Object.freeze({
      suggestedLocale,
      languages: Object.freeze(languages.split(' ')) as string[],
      measurementSystem: IMPERIAL.has(country) ? 'imperial' : 'metric',
      dateFormat,
      timeFormat,
      firstDayOfWeek,
    });
  }
  cache.set(country, info);
  return info;
}
