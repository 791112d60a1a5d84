import type { Baseline, BaselineStore } from './baseline.js';
import { DEFAULT_TRAVEL_SETTINGS, fastTripSpeedKmh, type TravelSettings } from './travel-settings.js';

// Impossible-travel detection of POST /v1/risk/check (docs/api.md: Impossible travel). Pure: the stored
// baseline comes through the BaselineStore port, the time of the observation and the account's
// settings (travel-settings.ts) are passed in.
//
// The distance the rule uses is the great-circle distance less the accuracy radius of each location
// where the data gives one (never below 0): the two observations may be that much closer than their
// coordinates say. distanceKm stays the great-circle distance; effectiveDistanceKm is the one used,
// and impliedSpeedKmh is effectiveDistanceKm over the elapsed time. With the settings
// { maxSpeedKmh, minDistanceKm, minSeconds }, the rule, in the order it is applied:
//   - first-ever check (no baseline): risk low, impossibleTravel false, distances/speed/elapsed null;
//   - a move counts when the effective distance is beyond minDistanceKm and at least minSeconds
//     have passed;
//   - high, impossibleTravel true: the move counts and the implied speed exceeds maxSpeedKmh;
//   - medium: the country changed (both known and different, whatever the distance and time), or
//     the move counts and the speed exceeds half of maxSpeedKmh (a flight, possible but worth a look);
//   - low otherwise.
// The defaults (DEFAULT_TRAVEL_SETTINGS: 1,000 km/h, 200 km, 0 s) give the answers of the rule before
// it had settings. IP geolocation places an address at its city or its network's registered site,
// often tens and sometimes a couple of hundred km from the user; within minDistanceKm two
// observations are not evidence of travel at all, so nearby cities (London and Slough, Paris and
// Versailles) or a mobile network re-homing a user never trip the rule, however short the time
// between them. The implied speed divides by at least MIN_ELAPSED_SECONDS, so two observations in
// the same second are a finite (and, beyond minDistanceKm, impossible) speed rather than a division
// by zero.

export const EARTH_MEAN_RADIUS_KM = 6371.0088;
/** Default minDistanceKm: distances up to this are within the error of IP geolocation. */
export const GEOLOCATION_ERROR_RADIUS_KM = DEFAULT_TRAVEL_SETTINGS.minDistanceKm;
/** Default maxSpeedKmh: above this implied speed (beyond the distance) travel is impossible. */
export const IMPOSSIBLE_SPEED_KMH = DEFAULT_TRAVEL_SETTINGS.maxSpeedKmh;
/** Half the default maxSpeedKmh: above this implied speed travel is possible but fast: medium risk. */
export const FAST_TRIP_SPEED_KMH = fastTripSpeedKmh(DEFAULT_TRAVEL_SETTINGS);
/** The implied speed divides by at least this many seconds. */
export const MIN_ELAPSED_SECONDS = 1;

export const RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type Risk = (typeof RISK_LEVELS)[number];

export interface Coordinates {
  latitude: number;
  longitude: number;
}

/** A country and coordinates, as the result shows them. */
export interface Place extends Coordinates {
  country: string | null;
}

/** Where an IP address is now: country, coordinates and accuracy radius from the IP lookup. */
export interface Location extends Place {
  /** How far, km, the address may be from its coordinates; null when the data gives none. */
  accuracyRadiusKm: number | null;
}

export interface TravelRiskResult {
  risk: Risk;
  impossibleTravel: boolean;
  /** Great-circle distance. */
  distanceKm: number | null;
  /** distanceKm less both accuracy radii, at least 0: the distance the rule used. */
  effectiveDistanceKm: number | null;
  /** effectiveDistanceKm over the elapsed time. */
  impliedSpeedKmh: number | null;
  elapsedSeconds: number | null;
  accuracyRadiusKm: { previous: number | null; current: number | null };
  previousLocation: (Place & { observedAt: string }) | null;
  currentLocation: Place;
  /** The settings applied. */
  settings: TravelSettings;
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

/** A usable accuracy radius (finite, not negative), else null: absent on older baselines. */
function radiusOf(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * The great-circle distance less the accuracy radius of each side that has one, never below 0: how
 * far apart the two observations are at least.
 */
export function effectiveDistanceKm(
  distanceKm: number,
  previousRadiusKm: number | null,
  currentRadiusKm: number | null,
): number {
  return Math.max(0, distanceKm - (previousRadiusKm ?? 0) - (currentRadiusKm ?? 0));
}

/**
 * The risk of moving from `previous` (null: first-ever check) to `current` at time `now`, under the
 * account's `settings` (default: DEFAULT_TRAVEL_SETTINGS, the rule's fixed values before settings).
 */
export function assessTravel(
  previous: Baseline | null,
  current: Location,
  now: Date,
  settings: TravelSettings = DEFAULT_TRAVEL_SETTINGS,
): TravelRiskResult {
  const applied: TravelSettings = {
    maxSpeedKmh: settings.maxSpeedKmh,
    minDistanceKm: settings.minDistanceKm,
    minSeconds: settings.minSeconds,
  };
  const currentLocation: Place = {
    country: current.country,
    latitude: current.latitude,
    longitude: current.longitude,
  };
  const currentRadius = radiusOf(current.accuracyRadiusKm);
  if (previous === null) {
    return {
      risk: 'low',
      impossibleTravel: false,
      distanceKm: null,
      effectiveDistanceKm: null,
      impliedSpeedKmh: null,
      elapsedSeconds: null,
      accuracyRadiusKm: { previous: null, current: currentRadius },
      previousLocation: null,
      currentLocation,
      settings: applied,
    };
  }
  const previousRadius = radiusOf(previous.accuracyRadiusKm);
  const distanceKm = haversineKm(previous, current);
  const effectiveKm = effectiveDistanceKm(distanceKm, previousRadius, currentRadius);
  // A baseline newer than `now` (a concurrent check, clock skew) counts as no time at all.
  const elapsedSeconds = Math.max(0, (now.getTime() - new Date(previous.observedAt).getTime()) / 1000);
  const speedKmh = effectiveKm / (Math.max(elapsedSeconds, MIN_ELAPSED_SECONDS) / 3600);
  const counts = effectiveKm > applied.minDistanceKm && elapsedSeconds >= applied.minSeconds;
  const impossibleTravel = counts && speedKmh > applied.maxSpeedKmh;
  const countryChanged =
    previous.country !== null && current.country !== null && previous.country !== current.country;
  const risk: Risk = impossibleTravel
    ? 'high'
    : countryChanged || (counts && speedKmh > fastTripSpeedKmh(applied))
      ? 'medium'
      : 'low';
  return {
    risk,
    impossibleTravel,
    distanceKm: round(distanceKm, 1),
    effectiveDistanceKm: round(effectiveKm, 1),
    impliedSpeedKmh: round(speedKmh, 1),
    elapsedSeconds: Math.round(elapsedSeconds),
    accuracyRadiusKm: { previous: previousRadius, current: currentRadius },
    previousLocation: {
      country: previous.country,
      latitude: previous.latitude,
      longitude: previous.longitude,
      observedAt: previous.observedAt,
    },
    currentLocation,
    settings: applied,
  };
}

export interface TravelCheck {
  /** The baseline key (user-id.ts baselineKey: HMAC of account and userId). */
  key: string;
  /** This observation, with its accuracy radius (null when the data gives none). */
  current: Location;
  /** Time of this observation. */
  now: Date;
  /** Move the baseline to this observation (default in the API); false never writes. */
  commit: boolean;
  /** The account's settings; default DEFAULT_TRAVEL_SETTINGS. */
  settings?: TravelSettings;
}

/**
 * Compares with the stored baseline and, when committing, moves the baseline to this observation
 * (its accuracy radius too, for the next check). Concurrent committed checks for one user leave the
 * newest observation (putIfNewer).
 */
export async function checkTravel(store: BaselineStore, check: TravelCheck): Promise<TravelRiskResult> {
  const previous = (await store.get(check.key)) ?? null;
  const result = assessTravel(previous, check.current, check.now, check.settings);
  if (check.commit) {
    await store.putIfNewer(check.key, {
      ...result.currentLocation,
      accuracyRadiusKm: result.accuracyRadiusKm.current,
      observedAt: check.now.toISOString(),
    });
  }
  return result;
}
