import * as z from 'zod';
import {
  FAST_TRIP_SPEED_KMH,
  GEOLOCATION_ERROR_RADIUS_KM,
  IMPOSSIBLE_SPEED_KMH,
  MIN_ELAPSED_SECONDS,
  RISK_LEVELS,
} from './travel.js';

// The travel-risk result (docs/api.md: Impossible travel); the OpenAPI document is built from it.

const radius = `${GEOLOCATION_ERROR_RADIUS_KM} km`;

const country = z
  .string()
  .length(2)
  .nullable()
  .describe('ISO 3166-1 alpha-2 country code; null when the source has none.');
const latitude = z
  .number()
  .describe('Approximate latitude in degrees (IP geolocation, not a device position).');
const longitude = z
  .number()
  .describe('Approximate longitude in degrees (IP geolocation, not a device position).');

export const TravelRiskResultSchema = z.object({
  risk: z
    .enum(RISK_LEVELS)
    .describe(
      `high when impossibleTravel; medium when the country changed, or the distance is beyond ${radius} ` +
        `and the implied speed above ${FAST_TRIP_SPEED_KMH} km/h (a fast but possible trip); low otherwise, ` +
        'and on the first-ever check.',
    ),
  impossibleTravel: z
    .boolean()
    .describe(
      `True when the distance exceeds ${radius} (the error radius of IP geolocation: nearby cities never ` +
        `count) and the implied speed exceeds ${IMPOSSIBLE_SPEED_KMH} km/h (an airliner cruises at about 900).`,
    ),
  distanceKm: z
    .number()
    .nonnegative()
    .nullable()
    .describe(
      'Great-circle distance between the previous and current location, km (0.1 km); null on the first-ever check.',
    ),
  impliedSpeedKmh: z
    .number()
    .nonnegative()
    .nullable()
    .describe(
      `distanceKm divided by elapsed time (at least ${MIN_ELAPSED_SECONDS} s, so an instant move is a finite ` +
        `speed), km/h (0.1); distances within ${radius} are not classified whatever this says. Null on the ` +
        'first-ever check.',
    ),
  elapsedSeconds: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe(
      'Whole seconds since the previous observation (0 when the stored one is newer); null on the first-ever check.',
    ),
  previousLocation: z
    .object({
      country,
      latitude,
      longitude,
      observedAt: z.iso.datetime().describe('When that location was observed (ISO 8601 UTC).'),
    })
    .nullable()
    .describe('The stored baseline before this call; null on the first-ever check for the userId.'),
  currentLocation: z
    .object({ country, latitude, longitude })
    .describe('Location of the supplied ip; it becomes the baseline unless commit is false.'),
});

export type TravelRiskResultDto = z.infer<typeof TravelRiskResultSchema>;
