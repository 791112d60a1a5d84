import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { Baseline } from '../../../functions/lib/risk/baseline.js';
import { TravelRiskResultSchema } from '../../../functions/lib/risk/schema.js';
import {
  assessTravel,
  EARTH_MEAN_RADIUS_KM,
  FAST_TRIP_SPEED_KMH,
  GEOLOCATION_ERROR_RADIUS_KM,
  haversineKm,
  IMPOSSIBLE_SPEED_KMH,
  type Location,
} from '../../../functions/lib/risk/travel.js';
import { DEFAULT_TRAVEL_SETTINGS } from '../../../functions/lib/risk/travel-settings.js';

// The rule with the default settings: exactly its answers from before the settings and the accuracy
// radii (travel-settings.cases.ts has the settings and the radii). The locations here have no radius.

const LONDON: Location = { country: 'GB', latitude: 51.5074, longitude: -0.1278, accuracyRadiusKm: null };
const NEW_YORK: Location = { country: 'US', latitude: 40.7128, longitude: -74.006, accuracyRadiusKm: null };
const PARIS: Location = { country: 'FR', latitude: 48.8566, longitude: 2.3522, accuracyRadiusKm: null };
const SLOUGH: Location = { country: 'GB', latitude: 51.5105, longitude: -0.595, accuracyRadiusKm: null };
const LOS_ANGELES: Location = {
  country: 'US',
  latitude: 34.0522,
  longitude: -118.2437,
  accuracyRadiusKm: null,
};
const STRASBOURG: Location = { country: 'FR', latitude: 48.5734, longitude: 7.7521, accuracyRadiusKm: null };
const KEHL: Location = { country: 'DE', latitude: 48.5722, longitude: 7.8156, accuracyRadiusKm: null };

/** The location as the result shows it (its radius is under accuracyRadiusKm). */
const shown = ({ accuracyRadiusKm: _r, ...place }: Location) => place;

const T0 = new Date('2026-05-01T08:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function baseline(at: Location, observedAt: Date = T0): Baseline {
  return {
    country: at.country,
    latitude: at.latitude,
    longitude: at.longitude,
    observedAt: observedAt.toISOString(),
  };
}

const later = (ms: number) => new Date(T0.getTime() + ms);

/** A point `km` north of `from` along its meridian (1 degree of latitude = R·π/180 km). */
function northOf(from: Location, km: number, country = from.country): Location {
  return {
    country,
    latitude: from.latitude + km / ((EARTH_MEAN_RADIUS_KM * Math.PI) / 180),
    longitude: from.longitude,
    accuracyRadiusKm: null,
  };
}

describe('great-circle distance', () => {
  test('known city pairs', () => {
    expect(haversineKm(LONDON, NEW_YORK)).toBeGreaterThan(5560);
    expect(haversineKm(LONDON, NEW_YORK)).toBeLessThan(5580);
    expect(haversineKm(LONDON, PARIS)).toBeGreaterThan(340);
    expect(haversineKm(LONDON, PARIS)).toBeLessThan(348);
    expect(haversineKm(LONDON, LONDON)).toBe(0);
    expect(haversineKm(LONDON, NEW_YORK)).toBeCloseTo(haversineKm(NEW_YORK, LONDON), 9);
  });

  test('antipodes are half the circumference, without NaN', () => {
    const d = haversineKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 });
    expect(d).toBeCloseTo(Math.PI * EARTH_MEAN_RADIUS_KM, 3);
  });
});

describe('travel risk', () => {
  test('the first-ever check is low risk with nulls', () => {
    const result = assessTravel(null, LONDON, T0);
    expect(result).toEqual({
      risk: 'low',
      impossibleTravel: false,
      distanceKm: null,
      effectiveDistanceKm: null,
      impliedSpeedKmh: null,
      elapsedSeconds: null,
      accuracyRadiusKm: { previous: null, current: null },
      previousLocation: null,
      currentLocation: shown(LONDON),
      settings: DEFAULT_TRAVEL_SETTINGS,
    });
    expect(TravelRiskResultSchema.parse(result)).toEqual(result);
  });

  test('London then New York ten minutes later is impossible travel: high', () => {
    const result = assessTravel(baseline(LONDON), NEW_YORK, later(10 * MINUTE));
    expect(result).toMatchObject({ risk: 'high', impossibleTravel: true, elapsedSeconds: 600 });
    expect(result.distanceKm).toBeCloseTo(5570, -1);
    expect(result.impliedSpeedKmh).toBeGreaterThan(33_000);
    expect(result.previousLocation).toEqual(baseline(LONDON));
    expect(result.currentLocation).toEqual(shown(NEW_YORK));
    expect(result.effectiveDistanceKm).toBe(result.distanceKm);
    expect(result.settings).toEqual(DEFAULT_TRAVEL_SETTINGS);
    expect(TravelRiskResultSchema.parse(result)).toEqual(result);
  });

  test('London then Paris five hours later is possible; the country change makes it medium', () => {
    const result = assessTravel(baseline(LONDON), PARIS, later(5 * HOUR));
    expect(result).toMatchObject({ risk: 'medium', impossibleTravel: false, elapsedSeconds: 18_000 });
    expect(result.impliedSpeedKmh).toBeCloseTo(68.7, 0);
  });

  test('nearby cities never trip the rule, however little time passed (London then Slough 1 s later)', () => {
    const result = assessTravel(baseline(LONDON), SLOUGH, later(1000));
    expect(result.distanceKm).toBeLessThan(GEOLOCATION_ERROR_RADIUS_KM);
    expect(result).toMatchObject({ risk: 'low', impossibleTravel: false, elapsedSeconds: 1 });
  });

  test('zero elapsed time does not divide by zero: the speed uses at least one second', () => {
    const far = assessTravel(baseline(LONDON), NEW_YORK, T0);
    expect(far).toMatchObject({ risk: 'high', impossibleTravel: true, elapsedSeconds: 0 });
    expect(Number.isFinite(far.impliedSpeedKmh)).toBe(true);
    expect(far.impliedSpeedKmh).toBeCloseTo(haversineKm(LONDON, NEW_YORK) * 3600, 0);
    const same = assessTravel(baseline(LONDON), LONDON, T0);
    expect(same).toMatchObject({ risk: 'low', impossibleTravel: false, distanceKm: 0, impliedSpeedKmh: 0 });
  });

  test('a stored observation newer than this one counts as zero elapsed time', () => {
    const result = assessTravel(baseline(LONDON, later(HOUR)), LONDON, T0);
    expect(result.elapsedSeconds).toBe(0);
    expect(result.risk).toBe('low');
  });

  test('a fast but possible trip within one country is medium (New York then Los Angeles in 5 h)', () => {
    const result = assessTravel(baseline(NEW_YORK), LOS_ANGELES, later(5 * HOUR));
    expect(result.impliedSpeedKmh).toBeGreaterThan(FAST_TRIP_SPEED_KMH);
    expect(result.impliedSpeedKmh).toBeLessThan(IMPOSSIBLE_SPEED_KMH);
    expect(result).toMatchObject({ risk: 'medium', impossibleTravel: false });
  });

  test('the same trip in 3 h is impossible (high); in two days it is low', () => {
    expect(assessTravel(baseline(NEW_YORK), LOS_ANGELES, later(3 * HOUR))).toMatchObject({
      risk: 'high',
      impossibleTravel: true,
    });
    expect(assessTravel(baseline(NEW_YORK), LOS_ANGELES, later(48 * HOUR))).toMatchObject({
      risk: 'low',
      impossibleTravel: false,
    });
  });

  test('a country change is medium even within the error radius (Strasbourg then Kehl)', () => {
    const result = assessTravel(baseline(STRASBOURG), KEHL, later(MINUTE));
    expect(result.distanceKm).toBeLessThan(10);
    expect(result).toMatchObject({ risk: 'medium', impossibleTravel: false });
  });

  test('an unknown country on either side is not a country change', () => {
    const unknownBefore = assessTravel(baseline({ ...LONDON, country: null }), LONDON, later(HOUR));
    expect(unknownBefore.risk).toBe('low');
    const unknownNow = assessTravel(baseline(PARIS), { ...PARIS, country: null }, later(HOUR));
    expect(unknownNow.risk).toBe('low');
  });

  test('thresholds: beyond 200 km, above 1,000 km/h is high, above 500 km/h medium, else low', () => {
    const km = 600;
    const to = northOf(LONDON, km);
    const at = (kmh: number) => later((km / kmh) * HOUR);
    expect(assessTravel(baseline(LONDON), to, at(1010))).toMatchObject({
      risk: 'high',
      impossibleTravel: true,
    });
    expect(assessTravel(baseline(LONDON), to, at(990))).toMatchObject({
      risk: 'medium',
      impossibleTravel: false,
    });
    expect(assessTravel(baseline(LONDON), to, at(510)).risk).toBe('medium');
    expect(assessTravel(baseline(LONDON), to, at(490)).risk).toBe('low');
  });

  test('the radius: 199 km in one second is low, 201 km in one second is high', () => {
    expect(assessTravel(baseline(LONDON), northOf(LONDON, 199), later(1000))).toMatchObject({
      risk: 'low',
      impossibleTravel: false,
    });
    expect(assessTravel(baseline(LONDON), northOf(LONDON, 201), later(1000))).toMatchObject({
      risk: 'high',
      impossibleTravel: true,
    });
  });

  test('any pair of observations gives a schema-valid result whose risk follows the rule', () => {
    const place = fc.record({
      country: fc.constantFrom('GB', 'FR', 'US', null),
      latitude: fc.double({ min: -90, max: 90, noNaN: true }),
      longitude: fc.double({ min: -180, max: 180, noNaN: true }),
      accuracyRadiusKm: fc.constant(null),
    });
    fc.assert(
      fc.property(place, place, fc.integer({ min: -HOUR, max: 30 * 24 * HOUR }), (from, to, ms) => {
        const result = assessTravel(baseline(from), to, later(ms));
        expect(TravelRiskResultSchema.safeParse(result).success).toBe(true);
        expect(result.impossibleTravel).toBe(result.risk === 'high');
        if ((result.distanceKm as number) <= GEOLOCATION_ERROR_RADIUS_KM - 0.1) {
          expect(result.impossibleTravel).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});
