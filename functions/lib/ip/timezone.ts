// IANA timezone at a point (spec: timezone is "computed from latitude and longitude; null when
// coordinates are unavailable"). tz-lookup answers from a compact embedded map of timezone
// boundaries; over open sea it gives the nautical zone ("Etc/GMT+5").
import tzLookup from '@photostructure/tz-lookup';

export function timezoneAt(lat: number | null, lon: number | null): string | null {
  if (lat === null || lon === null || !Number.isFinite(lat) || !Number.isFinite(lon)) return null;
  if (Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  try {
    return tzLookup(lat, lon);
  } catch {
    return null;
  }
}
