import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { ValidationError } from '../../../functions/lib/http/errors.js';
import { validate } from '../../../functions/lib/http/validate.js';
import type { Baseline, BaselineStore } from '../../../functions/lib/risk/baseline.js';
import { TravelRiskResultSchema } from '../../../functions/lib/risk/schema.js';
import {
  assessTravel,
  checkTravel,
  EARTH_MEAN_RADIUS_KM,
  effectiveDistanceKm,
  haversineKm,
  type Location,
  MIN_ELAPSED_SECONDS,
  type Risk,
} from '../../../functions/lib/risk/travel.js';
import {
  DEFAULT_TRAVEL_SETTINGS,
  TRAVEL_SETTINGS_BOUNDS,
  type TravelSettings,
  TravelSettingsSchema,
  travelSettingsOf,
} from '../../../functions/lib/risk/travel-settings.js';
import * as z from '../../../functions/lib/zod.js';

// The account's travel settings and the locations' accuracy radii: the settings body, the rule under
// other settings, the distance less the radii, and the radius kept with the baseline.

const LONDON: Location = { country: 'GB', latitude: 51.5074, longitude: -0.1278, accuracyRadiusKm: null };
const NEW_YORK: Location = { country: 'US', latitude: 40.7128, longitude: -74.006, accuracyRadiusKm: null };
const LOS_ANGELES: Location = {
  country: 'US',
  latitude: 34.0522,
  longitude: -118.2437,
  accuracyRadiusKm: null,
};

const T0 = new Date('2026-05-01T08:00:00Z');
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const later = (ms: number) => new Date(T0.getTime() + ms);

function baseline(at: Location, observedAt: Date = T0): Baseline {
  return {
    country: at.country,
    latitude: at.latitude,
    longitude: at.longitude,
    accuracyRadiusKm: at.accuracyRadiusKm,
    observedAt: observedAt.toISOString(),
  };
}

/** A point `km` north of `from` along its meridian, in the same country unless told. */
function northOf(from: Location, km: number, accuracyRadiusKm: number | null = null): Location {
  return {
    country: from.country,
    latitude: from.latitude + km / ((EARTH_MEAN_RADIUS_KM * Math.PI) / 180),
    longitude: from.longitude,
    accuracyRadiusKm,
  };
}

const withRadius = (at: Location, accuracyRadiusKm: number | null): Location => ({ ...at, accuracyRadiusKm });
const settings = (s: Partial<TravelSettings>): TravelSettings => ({ ...DEFAULT_TRAVEL_SETTINGS, ...s });

/** The code validate() answers a PUT /v1/account/travel body with, or 'ok'. */
function bodyCode(body: unknown): string {
  try {
    validate(TravelSettingsSchema, body);
    return 'ok';
  } catch (err) {
    if (err instanceof ValidationError) return err.code;
    throw err;
  }
}

describe('travel settings', () => {
  describe('the settings body (PUT /v1/account/travel)', () => {
    test('the defaults are the rule before settings: 1,000 km/h, 200 km, 0 s', () => {
      expect(DEFAULT_TRAVEL_SETTINGS).toEqual({ maxSpeedKmh: 1000, minDistanceKm: 200, minSeconds: 0 });
      expect(Object.isFrozen(DEFAULT_TRAVEL_SETTINGS)).toBe(true);
    });

    test('every field is optional: a field left out is its default, {} is the defaults', () => {
      expect(travelSettingsOf(validate(TravelSettingsSchema, {}))).toEqual(DEFAULT_TRAVEL_SETTINGS);
      expect(travelSettingsOf(validate(TravelSettingsSchema, { minDistanceKm: 50 }))).toEqual({
        maxSpeedKmh: 1000,
        minDistanceKm: 50,
        minSeconds: 0,
      });
      const all = { maxSpeedKmh: 900, minDistanceKm: 50, minSeconds: 600 };
      expect(travelSettingsOf(validate(TravelSettingsSchema, all))).toEqual(all);
    });

    test('the bounds are inclusive', () => {
      for (const [field, { min, max }] of Object.entries(TRAVEL_SETTINGS_BOUNDS)) {
        expect([field, bodyCode({ [field]: min })]).toEqual([field, 'ok']);
        expect([field, bodyCode({ [field]: max })]).toEqual([field, 'ok']);
      }
      expect(TRAVEL_SETTINGS_BOUNDS).toEqual({
        maxSpeedKmh: { min: 100, max: 20_000 },
        minDistanceKm: { min: 0, max: 5000 },
        minSeconds: { min: 0, max: 86_400 },
      });
    });

    test('out of range, fractional, mistyped or null values are invalid_field', () => {
      const refused: unknown[] = [
        { maxSpeedKmh: 99 },
        { maxSpeedKmh: 20_001 },
        { maxSpeedKmh: 0 },
        { maxSpeedKmh: 1000.5 },
        { maxSpeedKmh: '1000' },
        { maxSpeedKmh: null },
        { minDistanceKm: -1 },
        { minDistanceKm: 5001 },
        { minDistanceKm: 49.9 },
        { minSeconds: -1 },
        { minSeconds: 86_401 },
        { minSeconds: 0.5 },
        { minSeconds: true },
        { maxSpeedKmh: Number.POSITIVE_INFINITY },
      ];
      for (const body of refused) expect([body, bodyCode(body)]).toEqual([body, 'invalid_field']);
    });

    test('unknown fields are refused, not dropped', () => {
      expect(bodyCode({ maxSpeedKmh: 900, minDistance: 50 })).toBe('invalid_field');
      expect(bodyCode({ settings: { maxSpeedKmh: 900 } })).toBe('invalid_field');
      expect(() => validate(TravelSettingsSchema, { fast: 1 })).toThrow(/fast/);
    });

    test('a body that is not an object is invalid_field', () => {
      for (const body of [null, [], 'fast', 900])
        expect([body, bodyCode(body)]).toEqual([body, 'invalid_field']);
    });

    test('as published: each field optional, described with its bounds and default; no other field', () => {
      const json = z.toJSONSchema(TravelSettingsSchema, { io: 'output' }) as {
        properties: Record<string, { type: string; minimum: number; maximum: number; description: string }>;
        required?: string[];
        additionalProperties: boolean;
        description: string;
      };
      expect(json.required ?? []).toEqual([]);
      expect(json.additionalProperties).toBe(false);
      expect(json.description).toContain('A field left out takes its default');
      for (const [field, { min, max }] of Object.entries(TRAVEL_SETTINGS_BOUNDS)) {
        const d = DEFAULT_TRAVEL_SETTINGS[field as keyof TravelSettings];
        expect([field, json.properties[field]]).toEqual([
          field,
          {
            type: 'integer',
            minimum: min,
            maximum: max,
            description: expect.stringContaining(`Default ${d}`),
          },
        ]);
      }
    });
  });

  describe('the rule under the default settings', () => {
    test('no settings, DEFAULT_TRAVEL_SETTINGS, and the rule before settings give the same answers', () => {
      // The rule as it was before settings and radii: beyond 200 km, above 1,000 km/h is high; a
      // country change, or beyond 200 km above 500 km/h, medium.
      const before = (from: Location, to: Location, ms: number): Risk => {
        const km = haversineKm(from, to);
        const kmh = km / (Math.max(Math.max(0, ms) / 1000, MIN_ELAPSED_SECONDS) / 3600);
        const changed = from.country !== null && to.country !== null && from.country !== to.country;
        if (km > 200 && kmh > 1000) return 'high';
        return changed || (km > 200 && kmh > 500) ? 'medium' : 'low';
      };
      const place = fc.record({
        country: fc.constantFrom('GB', 'FR', 'US', null),
        latitude: fc.double({ min: -90, max: 90, noNaN: true }),
        longitude: fc.double({ min: -180, max: 180, noNaN: true }),
        accuracyRadiusKm: fc.constant(null),
      });
      fc.assert(
        fc.property(place, place, fc.integer({ min: -HOUR, max: 30 * 24 * HOUR }), (from, to, ms) => {
          const plain = assessTravel(baseline(from), to, later(ms));
          expect(assessTravel(baseline(from), to, later(ms), DEFAULT_TRAVEL_SETTINGS)).toEqual(plain);
          expect(plain.risk).toBe(before(from, to, ms));
          expect(plain.effectiveDistanceKm).toBe(plain.distanceKm);
          expect(plain.settings).toEqual(DEFAULT_TRAVEL_SETTINGS);
        }),
        { numRuns: 1000 },
      );
    });
  });

  describe('minDistanceKm', () => {
    test('a 40 km hop in 5 minutes is never impossible with minDistanceKm 50', () => {
      const to = northOf(LONDON, 40);
      const result = assessTravel(baseline(LONDON), to, later(5 * MINUTE), settings({ minDistanceKm: 50 }));
      expect(result.impliedSpeedKmh).toBeCloseTo(480, 0);
      expect(result).toMatchObject({ risk: 'low', impossibleTravel: false });
      // Not even in one second (2.9 million km/h on paper).
      expect(
        assessTravel(baseline(LONDON), to, later(SECOND), settings({ minDistanceKm: 50 })),
      ).toMatchObject({ risk: 'low', impossibleTravel: false });
    });

    test('beyond it, a hop counts: 60 km in 3 minutes is impossible, in 5 minutes medium', () => {
      const to = northOf(LONDON, 60);
      const s = settings({ minDistanceKm: 50 });
      expect(assessTravel(baseline(LONDON), to, later(3 * MINUTE), s)).toMatchObject({
        risk: 'high',
        impossibleTravel: true,
      });
      expect(assessTravel(baseline(LONDON), to, later(5 * MINUTE), s)).toMatchObject({
        risk: 'medium',
        impossibleTravel: false,
      });
      // The defaults' 200 km leave the same hop alone.
      expect(assessTravel(baseline(LONDON), to, later(3 * MINUTE)).risk).toBe('low');
    });

    test('minDistanceKm 0 counts any move, however small; the same place is still low', () => {
      const s = settings({ minDistanceKm: 0 });
      expect(assessTravel(baseline(LONDON), northOf(LONDON, 1), later(SECOND), s).risk).toBe('high');
      expect(assessTravel(baseline(LONDON), LONDON, later(SECOND), s).risk).toBe('low');
    });
  });

  describe('minSeconds', () => {
    test('observations less than minSeconds apart never count by speed', () => {
      const s = settings({ minSeconds: 2 * 3600 });
      // New York to Los Angeles (~3,940 km) in an hour: impossible under the defaults.
      expect(assessTravel(baseline(NEW_YORK), LOS_ANGELES, later(HOUR)).risk).toBe('high');
      expect(assessTravel(baseline(NEW_YORK), LOS_ANGELES, later(HOUR), s)).toMatchObject({
        risk: 'low',
        impossibleTravel: false,
      });
      expect(assessTravel(baseline(NEW_YORK), LOS_ANGELES, later(2 * HOUR - SECOND), s).risk).toBe('low');
      // From minSeconds on the move counts: ~1,970 km/h over two hours.
      expect(assessTravel(baseline(NEW_YORK), LOS_ANGELES, later(2 * HOUR), s)).toMatchObject({
        risk: 'high',
        impossibleTravel: true,
        elapsedSeconds: 7200,
      });
    });

    test('a country change is still medium within minSeconds', () => {
      const s = settings({ minSeconds: 3600 });
      expect(assessTravel(baseline(LONDON), NEW_YORK, later(10 * MINUTE), s)).toMatchObject({
        risk: 'medium',
        impossibleTravel: false,
      });
    });
  });

  describe('maxSpeedKmh', () => {
    test('a custom maxSpeedKmh flips the verdict of the same trip', () => {
      // New York to Los Angeles in 5 h: ~790 km/h.
      const trip = (s?: TravelSettings) => assessTravel(baseline(NEW_YORK), LOS_ANGELES, later(5 * HOUR), s);
      expect(trip().impliedSpeedKmh).toBeGreaterThan(780);
      expect(trip().impliedSpeedKmh).toBeLessThan(800);
      expect(trip()).toMatchObject({ risk: 'medium', impossibleTravel: false });
      expect(trip(settings({ maxSpeedKmh: 700 }))).toMatchObject({ risk: 'high', impossibleTravel: true });
      // Medium is above half of maxSpeedKmh: 790 km/h is below 1,000 of 2,000.
      expect(trip(settings({ maxSpeedKmh: 2000 }))).toMatchObject({ risk: 'low', impossibleTravel: false });
      expect(trip(settings({ maxSpeedKmh: 1500 }))).toMatchObject({
        risk: 'medium',
        impossibleTravel: false,
      });
    });

    test('the thresholds are strict: exactly maxSpeedKmh is medium, exactly half is low', () => {
      const km = 600;
      const to = northOf(LONDON, km);
      const s = settings({ maxSpeedKmh: 1200 });
      const at = (kmh: number) => later((km / kmh) * HOUR);
      expect(assessTravel(baseline(LONDON), to, at(1210), s).risk).toBe('high');
      expect(assessTravel(baseline(LONDON), to, at(1190), s).risk).toBe('medium');
      expect(assessTravel(baseline(LONDON), to, at(610), s).risk).toBe('medium');
      expect(assessTravel(baseline(LONDON), to, at(590), s).risk).toBe('low');
    });
  });

  describe('accuracy radius', () => {
    test('a 300 km jump with 100 km radii on both sides is 100 km effective: not impossible', () => {
      const from = withRadius(LONDON, 100);
      const to = northOf(LONDON, 300, 100);
      const result = assessTravel(baseline(from), to, later(MINUTE));
      expect(result).toMatchObject({
        risk: 'low',
        impossibleTravel: false,
        accuracyRadiusKm: { previous: 100, current: 100 },
        settings: { minDistanceKm: 200 },
      });
      expect(result.distanceKm).toBeCloseTo(300, 1);
      expect(result.effectiveDistanceKm).toBeCloseTo(100, 1);
      expect(result.impliedSpeedKmh).toBeCloseTo(6000, 0);
      expect(TravelRiskResultSchema.parse(result)).toEqual(result);
      // Without the radii the same jump is impossible.
      const bare = assessTravel(baseline(LONDON), northOf(LONDON, 300), later(MINUTE));
      expect(bare).toMatchObject({ risk: 'high', impossibleTravel: true });
      expect(bare.effectiveDistanceKm).toBe(bare.distanceKm);
    });

    test('one known radius is taken off alone; the previous one comes from the baseline', () => {
      const to = northOf(LONDON, 300);
      const onlyCurrent = assessTravel(baseline(LONDON), withRadius(to, 150), later(MINUTE));
      expect(onlyCurrent.accuracyRadiusKm).toEqual({ previous: null, current: 150 });
      expect(onlyCurrent.effectiveDistanceKm).toBeCloseTo(150, 1);
      expect(onlyCurrent.risk).toBe('low');
      const onlyPrevious = assessTravel(baseline(withRadius(LONDON, 50)), to, later(MINUTE));
      expect(onlyPrevious.accuracyRadiusKm).toEqual({ previous: 50, current: null });
      expect(onlyPrevious.effectiveDistanceKm).toBeCloseTo(250, 1);
      expect(onlyPrevious.risk).toBe('high');
    });

    test('a baseline stored without a radius reads as null', () => {
      const { accuracyRadiusKm: _r, ...old } = baseline(LONDON);
      const result = assessTravel(old, withRadius(NEW_YORK, 20), later(HOUR));
      expect(result.accuracyRadiusKm).toEqual({ previous: null, current: 20 });
    });

    test('the speed is over the effective distance, and decides against maxSpeedKmh', () => {
      // 600 km with 50 km radii: 500 km effective; in 27 minutes 1,111 km/h (1,333 on 600 km).
      const from = withRadius(LONDON, 50);
      const to = northOf(LONDON, 600, 50);
      const fast = assessTravel(baseline(from), to, later(27 * MINUTE));
      expect(fast.impliedSpeedKmh).toBeCloseTo(500 / (27 / 60), 0);
      expect(fast.risk).toBe('high');
      // In 33 minutes: 909 km/h effective (1,091 on 600 km): possible, medium.
      expect(assessTravel(baseline(from), to, later(33 * MINUTE)).risk).toBe('medium');
    });

    test('the effective distance is never negative: radii larger than the distance give 0', () => {
      const result = assessTravel(baseline(withRadius(LONDON, 100)), northOf(LONDON, 50, 100), later(0));
      expect(result).toMatchObject({ effectiveDistanceKm: 0, impliedSpeedKmh: 0, risk: 'low' });
      expect(result.distanceKm).toBeCloseTo(50, 1);
      expect(effectiveDistanceKm(50, 100, 100)).toBe(0);
      expect(effectiveDistanceKm(50, null, null)).toBe(50);
      expect(effectiveDistanceKm(300, 100, null)).toBe(200);
      // Even with minDistanceKm 0, zero effective distance is no move.
      expect(
        assessTravel(
          baseline(withRadius(LONDON, 100)),
          northOf(LONDON, 50, 100),
          later(0),
          settings({ minDistanceKm: 0 }),
        ).risk,
      ).toBe('low');
    });

    test('an unusable radius (negative, not finite) counts as unknown', () => {
      const to = northOf(LONDON, 300);
      for (const radius of [-5, Number.NaN, Number.POSITIVE_INFINITY]) {
        const result = assessTravel(baseline(LONDON), withRadius(to, radius), later(MINUTE));
        expect([radius, result.accuracyRadiusKm.current]).toEqual([radius, null]);
        expect(result.effectiveDistanceKm).toBe(result.distanceKm);
      }
    });

    test('the first-ever check shows the current radius, the settings, and null distances', () => {
      const s = settings({ maxSpeedKmh: 900 });
      const result = assessTravel(null, withRadius(LONDON, 20), T0, s);
      expect(result).toEqual({
        risk: 'low',
        impossibleTravel: false,
        distanceKm: null,
        effectiveDistanceKm: null,
        impliedSpeedKmh: null,
        elapsedSeconds: null,
        accuracyRadiusKm: { previous: null, current: 20 },
        previousLocation: null,
        currentLocation: { country: 'GB', latitude: LONDON.latitude, longitude: LONDON.longitude },
        settings: s,
      });
      expect(TravelRiskResultSchema.parse(result)).toEqual(result);
    });
  });

  test('any observations, radii and settings give a schema-valid result that follows the rule', () => {
    const place = fc.record({
      country: fc.constantFrom('GB', 'FR', 'US', null),
      latitude: fc.double({ min: -90, max: 90, noNaN: true }),
      longitude: fc.double({ min: -180, max: 180, noNaN: true }),
      accuracyRadiusKm: fc.option(fc.integer({ min: 0, max: 1000 })),
    });
    const { maxSpeedKmh: speed, minDistanceKm: distance, minSeconds: seconds } = TRAVEL_SETTINGS_BOUNDS;
    const anySettings = fc.record({
      maxSpeedKmh: fc.integer(speed),
      minDistanceKm: fc.integer(distance),
      minSeconds: fc.integer(seconds),
    });
    fc.assert(
      fc.property(
        place,
        place,
        fc.integer({ min: -HOUR, max: 30 * 24 * HOUR }),
        anySettings,
        (from, to, ms, s) => {
          const result = assessTravel(baseline(from), to, later(ms), s);
          expect(TravelRiskResultSchema.safeParse(result).success).toBe(true);
          expect(result.settings).toEqual(s);
          expect(result.impossibleTravel).toBe(result.risk === 'high');
          const distanceKm = result.distanceKm as number;
          const effective = result.effectiveDistanceKm as number;
          expect(effective).toBeGreaterThanOrEqual(0);
          expect(effective).toBeLessThanOrEqual(distanceKm);
          const taken = (from.accuracyRadiusKm ?? 0) + (to.accuracyRadiusKm ?? 0);
          expect(Math.abs(effective - Math.max(0, distanceKm - taken))).toBeLessThanOrEqual(0.1);
          if (effective <= s.minDistanceKm - 0.1 || Math.max(0, ms) < s.minSeconds * 1000) {
            expect(result.impossibleTravel).toBe(false);
            const changed = from.country !== null && to.country !== null && from.country !== to.country;
            expect(result.risk).toBe(changed ? 'medium' : 'low');
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  describe('checkTravel', () => {
    /** A store in memory with the same newer-wins write. */
    function memoryStore(): BaselineStore & { items: Map<string, Baseline> } {
      const items = new Map<string, Baseline>();
      return {
        items,
        get: async (key) => items.get(key),
        putIfNewer: async (key, next) => {
          const stored = items.get(key);
          if (stored && stored.observedAt > next.observedAt) return false;
          items.set(key, next);
          return true;
        },
        delete: async (key) => {
          items.delete(key);
        },
      };
    }

    test('keeps the radius with the baseline, and the next check takes it off', async () => {
      const store = memoryStore();
      const first = await checkTravel(store, {
        key: 'k',
        current: withRadius(LONDON, 100),
        now: T0,
        commit: true,
      });
      expect(first.settings).toEqual(DEFAULT_TRAVEL_SETTINGS);
      expect(store.items.get('k')).toEqual({ ...withRadius(LONDON, 100), observedAt: T0.toISOString() });
      const second = await checkTravel(store, {
        key: 'k',
        current: northOf(LONDON, 300, 100),
        now: later(MINUTE),
        commit: true,
      });
      expect(second.accuracyRadiusKm).toEqual({ previous: 100, current: 100 });
      expect(second).toMatchObject({ risk: 'low', impossibleTravel: false });
    });

    test('an unknown radius is kept as null; the settings given are applied', async () => {
      const store = memoryStore();
      await checkTravel(store, { key: 'k', current: LONDON, now: T0, commit: true });
      expect(store.items.get('k')?.accuracyRadiusKm).toBeNull();
      const s = settings({ minDistanceKm: 50 });
      const hop = await checkTravel(store, {
        key: 'k',
        current: northOf(LONDON, 40),
        now: later(5 * MINUTE),
        commit: false,
        settings: s,
      });
      expect(hop).toMatchObject({ risk: 'low', impossibleTravel: false, settings: s });
      // commit false wrote nothing.
      expect(store.items.get('k')?.observedAt).toBe(T0.toISOString());
    });
  });
});
