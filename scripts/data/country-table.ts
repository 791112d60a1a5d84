import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { countries } from 'countries-list';
import { type CountryCode, getCountryCallingCode, isSupportedCountry } from 'libphonenumber-js/core';
// The ESM build of the metadata (the package's default entry imports it as JSON).
import metadata from 'libphonenumber-js/min/metadata';
import { PROJECT_ROOT } from '../../infra/project-root.js';

// The per-country facts the IP lookup answers (functions/lib/ip/country-table.ts): continent, currency
// with its English name and local symbol, the locale group and the calling code. They are computed
// here, at development time, from countries-list, libphonenumber-js and the CLDR data built into Node
// (Intl), rather than in every lookup function: countries-list is 37 KB of each bundle,
// libphonenumber-js's metadata 90 KB, and the first Intl.DisplayNames, NumberFormat and
// DateTimeFormat of a process load ICU data (about 17, 6 and 6 ms of a cold start or of a first
// request, BENCHMARKS.md "bundles"), for about 250 short rows. `npm run data:countries` writes the
// file; test/unit/ip/country-table.cases.ts fails when it is stale (a countries-list or
// libphonenumber-js update, or a Node whose CLDR data gives other names, symbols or formats).

export const COUNTRY_TABLE_FILE = 'functions/lib/ip/country-table.ts';

const CONTINENTS: ReadonlySet<string> = new Set(['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA']);

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

type Entry = (typeof countries)[keyof typeof countries];

/** "de-DE" for DE: CLDR's likely language for the region ("und-DE" maximised), then the region. */
function suggestedLocaleOf(country: string, entry: Entry): string {
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

const currencyNames = new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'code' });

/** The currency's English name and its symbol as the country itself writes it ("$" in en-CA, not "CA$"). */
function currencyOf(locale: string, code: string): { name: string; symbol: string } {
  let symbol = code;
  try {
    const parts = new Intl.NumberFormat(locale, { style: 'currency', currency: code }).formatToParts(1);
    symbol = parts.find((p) => p.type === 'currency')?.value ?? code;
  } catch {
    // An unknown currency code keeps the code as its symbol.
  }
  return { name: currencyNames.of(code) ?? code, symbol };
}

/** libphonenumber's code where it knows the country, else the first of countries-list's. */
export function callingCodeOf(country: string, phones: readonly number[]): string | null {
  // libphonenumber knows the real country calling code (+1 for the Dominican Republic, whose
  // countries-list entry gives the area codes 1809/1829/1849).
  if (isSupportedCountry(country as CountryCode, metadata))
    return `+${getCountryCallingCode(country as CountryCode, metadata)}`;
  const first = phones[0];
  return first === undefined ? null : `+${first}`;
}

/** One row of the table, as functions/lib/ip/country-table.ts types it. */
function rowOf(country: string, entry: Entry): unknown[] {
  const locale = suggestedLocaleOf(country, entry);
  const code = entry.currency[0];
  const currency = code ? currencyOf(locale, code) : null;
  const hourCycle = new Intl.DateTimeFormat(locale, { hour: 'numeric' }).resolvedOptions().hourCycle;
  const languages = entry.languages.length > 0 ? entry.languages : [locale.split('-')[0] as string];
  return [
    CONTINENTS.has(entry.continent) ? entry.continent : null,
    code ?? null,
    currency?.name ?? null,
    currency?.symbol ?? null,
    locale,
    languages.join(' '),
    dateFormatOf(locale),
    hourCycle === 'h11' || hourCycle === 'h12' ? '12h' : '24h',
    firstDayOf(locale, country),
    callingCodeOf(country, entry.phone),
  ];
}

/** The CLDR version the Intl-derived columns come from (Node's ICU data). */
export function cldrVersion(): string {
  return process.versions.cldr ?? 'unknown';
}

/** The text of functions/lib/ip/country-table.ts. */
export function countryTableSource(): string {
  const rows = Object.entries(countries)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, entry]) => `  ${code}: ${JSON.stringify(rowOf(code, entry))},`);
  const text = [
    '// Generated by `npm run data:countries` (scripts/data/country-table.ts) from countries-list,',
    "// libphonenumber-js and the CLDR data of Node's Intl: do not edit. Per ISO 3166-1 alpha-2 code, the",
    '// facts that do not depend on the address.',
    '',
    '/** The CLDR version the names, symbols and formats come from. */',
    `export const COUNTRY_TABLE_CLDR = '${cldrVersion()}';`,
    '',
    'export type CountryRow = readonly [',
    '  continent: string | null,',
    '  currencyCode: string | null,',
    '  currencyName: string | null,',
    '  currencySymbol: string | null,',
    '  suggestedLocale: string,',
    '  /** Space-separated ISO 639-1 codes. */',
    '  languages: string,',
    '  dateFormat: string,',
    "  timeFormat: '12h' | '24h',",
    '  /** 1 = Monday ... 7 = Sunday. */',
    '  firstDayOfWeek: number,',
    "  /** '+49'. */",
    '  callingCode: string | null,',
    '];',
    '',
    'export const COUNTRY_ROWS: Readonly<Record<string, CountryRow>> = {',
    ...rows,
    '};',
    '',
  ].join('\n');
  // In the project's own format (biome.json), so that `npm run lint` and this file agree.
  return execFileSync(
    join(PROJECT_ROOT, 'node_modules/.bin/biome'),
    ['format', `--stdin-file-path=${COUNTRY_TABLE_FILE}`],
    {
      cwd: PROJECT_ROOT,
      input: text,
      encoding: 'utf8',
    },
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = join(PROJECT_ROOT, COUNTRY_TABLE_FILE);
  const text = countryTableSource();
  const before = await readFile(file, 'utf8').catch(() => '');
  if (before !== text) await writeFile(file, text);
  console.log(`${COUNTRY_TABLE_FILE}: ${before === text ? 'unchanged' : 'written'} (CLDR ${cldrVersion()})`);
}
