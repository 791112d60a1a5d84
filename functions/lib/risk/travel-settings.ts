import * as z from '../zod.js';

// An account's impossible-travel settings (docs/api.md: Impossible travel): the speed above which a
// move between two observations is impossible, and the distance and time below which it never is.
// Read and replaced through GET and PUT /v1/account/travel; POST /v1/risk/check applies them
// (travel.ts). An account that never set them gets DEFAULT_TRAVEL_SETTINGS, which are the rule's
// fixed values from before the settings existed: its answers do not change.
//
// All three are whole numbers. IP geolocation is off by tens of km, so a fraction of a km or km/h
// would be precision the data does not have; seconds are what elapsedSeconds counts in.

export interface TravelSettings {
  /** Above this implied speed (km/h) the move is impossible: risk high. Above half of it, medium. */
  maxSpeedKmh: number;
  /** Moves of at most this many km (after the accuracy radii are taken off) never count as travel. */
  minDistanceKm: number;
  /** Observations less than this many seconds apart never count as travel by speed. */
  minSeconds: number;
}

/** What an account that never set anything gets: exactly the rule's answers before the settings. */
export const DEFAULT_TRAVEL_SETTINGS: Readonly<TravelSettings> = Object.freeze({
  maxSpeedKmh: 1000,
  minDistanceKm: 200,
  minSeconds: 0,
});

/** The bounds of each setting, inclusive. */
export const TRAVEL_SETTINGS_BOUNDS = Object.freeze({
  maxSpeedKmh: { min: 100, max: 20_000 },
  minDistanceKm: { min: 0, max: 5000 },
  /** One day. */
  minSeconds: { min: 0, max: 86_400 },
});

/** Half of maxSpeedKmh: above it (beyond minDistanceKm and minSeconds) a trip is fast but possible. */
export function fastTripSpeedKmh(settings: TravelSettings): number {
  return settings.maxSpeedKmh / 2;
}

const { maxSpeedKmh: speed, minDistanceKm: distance, minSeconds: seconds } = TRAVEL_SETTINGS_BOUNDS;
const D = DEFAULT_TRAVEL_SETTINGS;

/** The three fields, each a whole number within its bounds (shared by the body and the result). */
export const travelSettingFields = {
  maxSpeedKmh: z
    .number()
    .check(
      z.int(),
      z.minimum(speed.min),
      z.maximum(speed.max),
      z.describe(
        `Implied speed, km/h (a whole number from ${speed.min} to ${speed.max}), above which a move is ` +
          `impossible travel: risk high. Above half of it the trip is fast but possible: risk medium. ` +
          `Default ${D.maxSpeedKmh} (an airliner cruises at about 900).`,
      ),
    ),
  minDistanceKm: z
    .number()
    .check(
      z.int(),
      z.minimum(distance.min),
      z.maximum(distance.max),
      z.describe(
        `Distance, km (a whole number from ${distance.min} to ${distance.max}), up to which a move never ` +
          'counts as travel, measured after the accuracy radii of both locations are taken off. ' +
          `Default ${D.minDistanceKm} (the error of IP geolocation: nearby cities never count).`,
      ),
    ),
  minSeconds: z
    .number()
    .check(
      z.int(),
      z.minimum(seconds.min),
      z.maximum(seconds.max),
      z.describe(
        `Seconds (a whole number from ${seconds.min} to ${seconds.max}, one day): observations less than ` +
          'this far apart never count as travel by speed (a country change is still medium). ' +
          `Default ${D.minSeconds}: every interval counts.`,
      ),
    ),
};

/**
 * The body of PUT /v1/account/travel: every field optional (a field left out takes its default, so
 * `{}` restores the defaults), unknown fields refused. travelSettingsOf() fills in the defaults.
 */
export const TravelSettingsSchema = z
  .strictObject({
    maxSpeedKmh: z.optional(travelSettingFields.maxSpeedKmh),
    minDistanceKm: z.optional(travelSettingFields.minDistanceKm),
    minSeconds: z.optional(travelSettingFields.minSeconds),
  })
  .check(
    z.describe(
      "The account's impossible-travel settings. A field left out takes its default; the defaults " +
        `(maxSpeedKmh ${D.maxSpeedKmh}, minDistanceKm ${D.minDistanceKm}, minSeconds ${D.minSeconds}) ` +
        'give the same answers as an account that never set any.',
    ),
  );

export type TravelSettingsInput = z.output<typeof TravelSettingsSchema>;

/** The settings a (validated) body asks for: each field left out is its default. */
export function travelSettingsOf(input: TravelSettingsInput): TravelSettings {
  return {
    maxSpeedKmh: input.maxSpeedKmh ?? D.maxSpeedKmh,
    minDistanceKm: input.minDistanceKm ?? D.minDistanceKm,
    minSeconds: input.minSeconds ?? D.minSeconds,
  };
}
