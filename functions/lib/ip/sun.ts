// The sun group: sunrise, sunset and solar noon of the current solar day at the coordinates, and
// whether the sun is up now (suncalc 2, Meeus-based formulas). The clock is the caller's.
import { getTimes } from 'suncalc';
import type { SunInfo } from './schema.js';

const DAY_MS = 86_400_000;
/** Julian days of 1970-01-01 and of J2000, and suncalc's J0 offset (suncalc 2 getTimes). */
const J1970 = 2440588;
const J2000 = 2451545;
const J0 = 0.0009;
const MAX_CACHE = 20_000;

interface Day {
  sunrise: number | null;
  sunset: number | null;
  solarNoon: string;
  sunriseIso: string | null;
  sunsetIso: string | null;
  alwaysUp: boolean;
}

const days = new Map<string, Day>();

/**
 * suncalc's getTimes answers for the solar day containing `date`, from local solar midnight to the
 * next: it rounds `toDays(date) - J0 + lon/360` to an integer cycle. The same cycle number is the cache
 * key, so one getTimes call serves a place for a whole day.
 */
function cycleOf(t: number, lon: number): number {
  return Math.round(t / DAY_MS - 0.5 + J1970 - J2000 - J0 + lon / 360);
}

function dayAt(now: Date, lat: number, lon: number): Day {
  const cycle = cycleOf(now.getTime(), lon);
  const key = `${lat},${lon},${cycle}`;
  let day = days.get(key);
  if (!day) {
    const t = getTimes(now, lat, lon);
    day = {
      sunrise: t.sunrise?.getTime() ?? null,
      sunset: t.sunset?.getTime() ?? null,
      solarNoon: t.solarNoon.toISOString(),
      sunriseIso: t.sunrise?.toISOString() ?? null,
      sunsetIso: t.sunset?.toISOString() ?? null,
      alwaysUp: t.alwaysUp === true,
    };
    if (days.size >= MAX_CACHE) days.clear();
    days.set(key, day);
  }
  return day;
}

function sunFrom(day: Day, t: number): SunInfo {
  let isDaylight: boolean;
  if (day.sunrise !== null && day.sunset !== null) isDaylight = t >= day.sunrise && t < day.sunset;
  else if (day.sunrise !== null)
    isDaylight = t >= day.sunrise; // the sun rises and stays up
  else if (day.sunset !== null)
    isDaylight = t < day.sunset; // the sun sets for the polar night
  else isDaylight = day.alwaysUp; // polar day or night
  return { sunrise: day.sunriseIso, sunset: day.sunsetIso, solarNoon: day.solarNoon, isDaylight };
}

function validPoint(lat: number | null, lon: number | null): boolean {
  return (
    lat !== null &&
    lon !== null &&
    Number.isFinite(lat) &&
    Number.isFinite(lon) &&
    Math.abs(lat) <= 90 &&
    Math.abs(lon) <= 180
  );
}

/** Sun times at (lat, lon) for the instant `now`; null for missing or out-of-range coordinates. */
export function sunAt(now: Date, lat: number | null, lon: number | null): SunInfo | null {
  if (!validPoint(lat, lon)) return null;
  return sunFrom(dayAt(now, lat as number, lon as number), now.getTime());
}

/**
 * The same answer as `sunAt` for one fixed place, keeping that place's current day itself (no key
 * building per call): lookups keep one tracker per location record.
 */
export function sunTracker(lat: number | null, lon: number | null): ((now: Date) => SunInfo) | null {
  if (!validPoint(lat, lon)) return null;
  let lastCycle = Number.NaN;
  let lastDay: Day | null = null;
  return (now) => {
    const t = now.getTime();
    const cycle = cycleOf(t, lon as number);
    if (cycle !== lastCycle || !lastDay) {
      lastDay = dayAt(now, lat as number, lon as number);
      lastCycle = cycle;
    }
    return sunFrom(lastDay, t);
  };
}
