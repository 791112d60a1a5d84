// The holiday group: is today a public holiday where the address is, and which one comes next.
// "Today" is the local date in the resolved timezone. Calendars come from date-holidays, per country
// and, where it distinguishes them, per ISO 3166-2 subdivision (Bavaria has Epiphany, Berlin not).
// Calendar instances, each year's list and each day's answer are cached, so after the first request
// for a place and day the answer is a map lookup.
import { createRequire } from 'node:module';
import type HolidaysClass from 'date-holidays';
import type { HolidayInfo } from './schema.js';

// date-holidays is 1.4 MB of code and calendar data: it is loaded on the first holiday answer, not
// at cold start (in Lambda from the data layer's nodejs/node_modules, see layers/build).
const load = createRequire(import.meta.url);
let HolidaysLib: typeof HolidaysClass | undefined;
function Holidays(): typeof HolidaysClass {
  HolidaysLib ??= load('date-holidays') as typeof HolidaysClass;
  return HolidaysLib;
}

interface Entry {
  date: string;
  name: string;
}

interface Calendar {
  hd: HolidaysClass;
  timezone: string | null;
  years: Map<number, readonly Entry[]>;
  answers: Map<string, Readonly<HolidayInfo>>;
}

const MAX_ANSWERS = 400;
const MAX_FORMATTERS = 600;

let registry: HolidaysClass | undefined;
function holidays(): HolidaysClass {
  registry ??= new (Holidays())();
  return registry;
}
let supported: ReadonlySet<string> | undefined;
const states = new Map<string, ReadonlySet<string>>();
const calendars = new Map<string, Calendar | null>();
const formatters = new Map<string, { format: Intl.DateTimeFormat; minute: number; date: string }>();

function isSupported(country: string): boolean {
  supported ??= new Set(Object.keys(holidays().getCountries('en') ?? {}));
  return supported.has(country);
}

function statesOf(country: string): ReadonlySet<string> {
  let s = states.get(country);
  if (!s) {
    s = new Set(Object.keys(holidays().getStates(country, 'en') ?? {}));
    states.set(country, s);
  }
  return s;
}

function calendarFor(country: string, regionSuffix: string | null): Calendar | null {
  const state = regionSuffix && statesOf(country).has(regionSuffix) ? regionSuffix : null;
  const key = state ? `${country}-${state}` : country;
  let cal = calendars.get(key);
  if (cal !== undefined) return cal;
  cal = null;
  if (isSupported(country)) {
    const Lib = Holidays();
    const hd = state ? new Lib(country, state) : new Lib(country);
    cal = { hd, timezone: hd.getTimezones()?.[0] ?? null, years: new Map(), answers: new Map() };
  }
  calendars.set(key, cal);
  return cal;
}

/** Current date (YYYY-MM-DD) in an IANA timezone; formatters are cached and reused within a minute. */
export function localDate(now: Date, timezone: string): string | null {
  const minute = Math.floor(now.getTime() / 60_000);
  let f = formatters.get(timezone);
  if (f && f.minute === minute) return f.date;
  try {
    if (!f) {
      if (formatters.size >= MAX_FORMATTERS) formatters.clear();
      f = {
        // en-CA formats a numeric date as YYYY-MM-DD.
        format: new Intl.DateTimeFormat('en-CA', {
          timeZone: timezone,
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
        }),
        minute: -1,
        date: '',
      };
      formatters.set(timezone, f);
    }
    f.date = f.format.format(now);
    f.minute = minute;
    return f.date;
  } catch {
    return null;
  }
}

function publicHolidays(cal: Calendar, year: number): readonly Entry[] {
  let list = cal.years.get(year);
  if (!list) {
    const days = new Map<string, Entry>();
    for (const h of cal.hd.getHolidays(year, 'en')) {
      if (h.type !== 'public') continue;
      const date = h.date.slice(0, 10);
      // One entry per day: the first listed (date-holidays sorts by date and rule priority).
      if (!days.has(date)) days.set(date, Object.freeze({ date, name: h.name }));
    }
    list = [...days.values()];
    cal.years.set(year, list);
  }
  return list;
}

function answerAt(cal: Calendar, now: Date, timezone: string | null): Readonly<HolidayInfo> | null {
  const zone = timezone ?? cal.timezone ?? 'UTC';
  const today = localDate(now, zone) ?? localDate(now, 'UTC');
  if (!today) return null;
  let answer = cal.answers.get(today);
  if (answer) return answer;
  const year = Number(today.slice(0, 4));
  const list = publicHolidays(cal, year);
  const todays = list.find((h) => h.date === today) ?? null;
  const next = list.find((h) => h.date > today) ?? publicHolidays(cal, year + 1)[0] ?? null;
  answer = Object.freeze({ localDate: today, isPublicHoliday: todays !== null, today: todays, next });
  if (cal.answers.size >= MAX_ANSWERS) cal.answers.clear();
  cal.answers.set(today, answer);
  return answer;
}

export interface HolidayCalendar {
  /** The holiday group at `now` seen from `timezone` (the calendar's own timezone when null). */
  at(now: Date, timezone: string | null): Readonly<HolidayInfo> | null;
}

/**
 * The public-holiday calendar of a country and optional ISO 3166-2 region suffix ("BY" of "DE-BY"),
 * or null when date-holidays has none for the country. A region it does not distinguish falls back
 * to the country calendar. Instances are shared.
 */
export function holidayCalendar(country: string, regionSuffix: string | null): HolidayCalendar | null {
  const cal = calendarFor(country, regionSuffix);
  return cal ? { at: (now, timezone) => answerAt(cal, now, timezone) } : null;
}

/**
 * The holiday group for a country (and optional region suffix) at the instant `now` seen from
 * `timezone`. Without a timezone the calendar's own (the country's main timezone) is used. Null when
 * date-holidays has no calendar for the country.
 */
export function holidayAt(
  now: Date,
  country: string,
  regionSuffix: string | null,
  timezone: string | null,
): Readonly<HolidayInfo> | null {
  const cal = calendarFor(country, regionSuffix);
  return cal ? answerAt(cal, now, timezone) : null;
}
