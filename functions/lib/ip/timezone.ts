// IANA timezone at a point: a result's `timezone` when its location database gives none, computed
// from latitude and longitude; null without coordinates (the field's description in /docs).
// tz-lookup answers from a compact embedded map of timezone boundaries; over open sea it gives the
// nautical zone ("Etc/GMT+5").
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
