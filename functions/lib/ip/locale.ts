// The locale group: a country's default conventions, from ICU/CLDR data built into Node (Intl) and the
// language list of countries-list. suggestedLocale is always the country's own default: no
// Accept-Language header is read (the field's description in /docs says so).
import { countries, type TCountryCode } from 'countries-list';
import type { LocaleInfo } from './schema.js';

/** CLDR measurementSystem "US": the countries that still use US customary units. */
const IMPERIAL: ReadonlySet<string> = new Set(['US', 'LR', 'MM']);

/**
 * CLDR weekData firstDay, for runtimes whose Intl.Locale lacks weekInfo/getWeekInfo (ISO numbering).
 * Countries not listed start on Monday.
 */
const SUNDAY_FIRST =
  'AG AS BD BR BS BT BW BZ CA CN CO DM DO ET GT GU HK HN ID IL IN JM JP KE KH KR LA MH MM MO MT MX MZ NI NP PA PE ' +
  'PH PK PR PT PY SA SG SV TH TT TW UM US VE VI WS YE ZA ZW';
const SATURDAY_FIRST = 'AE AF BH DJ DZ EG IQ IR JO KW LY OM QA SD SY';
const FIRST_DAY = new Map<string, number>([
  ...SUNDAY_FIRST.split(' ').map((c) => [c, 7] as const),
  ...SATURDAY_FIRST.split(' ').map((c) => [c, 6] as const),
]);

const BIDI_MARKS = /[\u200e\u200f\u061c]/g;
const cache = new Map<string, Readonly<LocaleInfo> | null>();

type CountryEntry = (typeof countries)[TCountryCode];

function entryOf(country: string): CountryEntry | undefined {
  return (countries as Record<string, CountryEntry | undefined>)[country];
}

/** "de-DE" for DE: CLDR's likely language for the region ("und-DE" maximised), then the region. */
export function suggestedLocaleOf(country: string): string | null {
  const entry = entryOf(country);
  if (!entry) return null;
  try {
    const language = new Intl.Locale(`und-${country}`).maximize().language;
    if (language && language !== 'und') return `${language}-${country}`;
  } catch {
    // fall through to countries-list
  }
  const first = entry.languages[0];
  return first ? `${first}-${country}` : `en-${country}`;
}

function dateFormatOf(locale: string): string {
  const parts = new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    timeZone: 'UTC',
  }).formatToParts(new Date(Date.UTC(2001, 1, 3)));
  return parts
    .map((p) => {
      if (p.type === 'year') return 'YYYY';
      if (p.type === 'month') return 'MM';
      if (p.type === 'day') return 'DD';
      return p.value.replace(BIDI_MARKS, '');
    })
    .join('');
}

function firstDayOf(locale: string, country: string): number {
  try {
    const loc = new Intl.Locale(locale) as Intl.Locale & {
      getWeekInfo?: () => { firstDay: number };
      weekInfo?: { firstDay: number };
    };
    // Node 20 exposes the `weekInfo` getter; newer V8 replaces it with getWeekInfo().
    const info = typeof loc.getWeekInfo === 'function' ? loc.getWeekInfo() : loc.weekInfo;
    if (info && Number.isInteger(info.firstDay) && info.firstDay >= 1 && info.firstDay <= 7)
      return info.firstDay;
  } catch {
    // fall through to the table
  }
  return FIRST_DAY.get(country) ?? 1;
}

/** The locale group for a country, or null for a code countries-list does not know. Cached. */
export function localeFor(country: string): Readonly<LocaleInfo> | null {
  const cached = cache.get(country);
  if (cached !== undefined) return cached;
  const entry = entryOf(country);
  const suggested = suggestedLocaleOf(country);
  let info: Readonly<LocaleInfo> | null = null;
  if (entry && suggested) {
    const hourCycle = new Intl.DateTimeFormat(suggested, { hour: 'numeric' }).resolvedOptions().hourCycle;
    const languages = entry.languages.length > 0 ? [...entry.languages] : [suggested.split('-')[0] as string];
    info = Object.freeze({
      suggestedLocale: suggested,
      languages: Object.freeze(languages) as string[],
      measurementSystem: IMPERIAL.has(country) ? 'imperial' : 'metric',
      dateFormat: dateFormatOf(suggested),
      timeFormat: hourCycle === 'h11' || hourCycle === 'h12' ? '12h' : '24h',
      firstDayOfWeek: firstDayOf(suggested, country),
    });
  }
  cache.set(country, info);
  return info;
}
