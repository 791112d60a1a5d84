import type { Baseline, BaselineStore } from './baseline.js';

// Impossible-travel detection of POST /v1/risk/check (docs/api.md: Impossible travel). Pure: the stored
// baseline comes through the BaselineStore port and the time of the observation is passed in.
//
// The rule, in the order it is applied:
//   - first-ever check (no baseline): risk low, impossibleTravel false, distance/speed/elapsed null;
//   - high, impossibleTravel true: the distance is beyond GEOLOCATION_ERROR_RADIUS_KM (200 km) and the
//     implied speed exceeds IMPOSSIBLE_SPEED_KMH (1,000 km/h; an airliner cruises at about 900);
//   - medium: the country changed (both known and different), or the distance is beyond the radius
//     and the speed exceeds FAST_TRIP_SPEED_KMH (500 km/h: a flight, possible but worth a look);
//   - low otherwise.
// IP geolocation places an address at its city or its network's registered site, often tens and
// sometimes a couple of hundred km from the user; within the radius two observations are not
// evidence of travel at all, so nearby cities (London and Slough, Paris and Versailles) or a mobile
// network re-homing a user never trip the rule, however short the time between them. The implied
// speed divides by at least MIN_ELAPSED_SECONDS, so two observations in the same second are a finite
// (and, beyond the radius, impossible) speed rather than a division by zero.

export const EARTH_MEAN_RADIUS_KM = 6371.0088;
/** Distances up to this are within the error of IP geolocation: never evidence of travel. */
export const GEOLOCATION_ERROR_RADIUS_KM = 200;
/** Above this implied speed (beyond the radius) travel is impossible. */
export const IMPOSSIBLE_SPEED_KMH = 1000;
/** Above this implied speed (beyond the radius) travel is possible but fast: medium risk. */
export const FAST_TRIP_SPEED_KMH = 500;
/** The implied speed divides by at least this many seconds. */
export const MIN_ELAPSED_SECONDS = 1;

export const RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type Risk = (typeof RISK_LEVELS)[number];

export interface Coordinates {
  latitude: number;
  longitude: number;
}

/** Where an IP address is now: country and coordinates from the IP lookup. */
export interface Location extends Coordinates {
  country: string | null;
}

export interface TravelRiskResult {
  risk: Risk;
  impossibleTravel: boolean;
  distanceKm: number | null;
  impliedSpeedKmh: number | null;
  elapsedSeconds: number | null;
  previousLocation: Baseline | null;
  currentLocation: Location;
}

const RAD = Math.PI / 180;

/** Great-circle distance by the haversine formula on a sphere of the Earth's mean radius. */
export function haversineKm(a: Coordinates, b: Coordinates): number {
  const dLat = (b.latitude - a.latitude) * RAD;
  const dLon = (b.longitude - a.longitude) * RAD;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * RAD) * Math.cos(b.latitude * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_MEAN_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** The risk of moving from `previous` (null: first-ever check) to `current` at time `now`. */
export function assessTravel(previous: Baseline | null, current: Location, now: Date): TravelRiskResult {
  const currentLocation: Location = {
    country: current.country,
    latitude: current.latitude,
    longitude: current.longitude,
  };
  if (previous === null) {
    return {
      risk: 'low',
      impossibleTravel: false,
      distanceKm: null,
      impliedSpeedKmh: null,
      elapsedSeconds: null,
      previousLocation: null,
      currentLocation,
    };
  }
  const distanceKm = haversineKm(previous, current);
  // A baseline newer than `now` (a concurrent check, clock skew) counts as no time at all.
  const elapsedSeconds = Math.max(0, (now.getTime() - new Date(previous.observedAt).getTime()) / 1000);
  const speedKmh = distanceKm / (Math.max(elapsedSeconds, MIN_ELAPSED_SECONDS) / 3600);
  const beyondError = distanceKm > GEOLOCATION_ERROR_RADIUS_KM;
  const impossibleTravel = beyondError && speedKmh > IMPOSSIBLE_SPEED_KMH;
  const countryChanged =
    previous.country !== null && current.country !== null && previous.country !== current.country;
  const risk: Risk = impossibleTravel
    ? 'high'
    : countryChanged || (beyondError && speedKmh > FAST_TRIP_SPEED_KMH)
      ? 'medium'
      : 'low';
  return {
    risk,
    impossibleTravel,
    distanceKm: round(distanceKm, 1),
    impliedSpeedKmh: round(speedKmh, 1),
    elapsedSeconds: Math.round(elapsedSeconds),
    previousLocation: {
      country: previous.country,
      latitude: previous.latitude,
      longitude: previous.longitude,
      observedAt: previous.observedAt,
    },
    currentLocation,
  };
}

export interface TravelCheck {
  /** The baseline key (user-id.ts baselineKey: HMAC of account and userId). */
  key: string;
  current: Location;
  /** Time of this observation. */
  now: Date;
  /** Move the baseline to this observation (default in the API); false never writes. */
  commit: boolean;
}

/**
 * Compares with the stored baseline and, when committing, moves the baseline to this observation.
 * Concurrent committed checks for one user leave the newest observation (putIfNewer).
 */
export async function checkTravel(store: BaselineStore, check: TravelCheck): Promise<TravelRiskResult> {
  const previous = (await store.get(check.key)) ?? null;
  const result = assessTravel(previous, check.current, check.now);
  if (check.commit) {
    await store.putIfNewer(check.key, { ...result.currentLocation, observedAt: check.now.toISOString() });
  }
  return result;
}
