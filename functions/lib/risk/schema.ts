import * as z from '../zod.js';
import { MIN_ELAPSED_SECONDS, RISK_LEVELS } from './travel.js';
import { DEFAULT_TRAVEL_SETTINGS, travelSettingFields } from './travel-settings.js';

// The travel-risk result (docs/api.md: Impossible travel); the OpenAPI document is built from it.

const D = DEFAULT_TRAVEL_SETTINGS;
/** The defaults, as the texts name them. */
const defaults = `maxSpeedKmh ${D.maxSpeedKmh} km/h, minDistanceKm ${D.minDistanceKm} km, minSeconds ${D.minSeconds} s`;

const country = z
  .nullable(z.string().check(z.length(2)))
  .check(z.describe('ISO 3166-1 alpha-2 country code; null when the source has none.'));
const latitude = z
  .number()
  .check(z.describe('Approximate latitude in degrees (IP geolocation, not a device position).'));
const longitude = z
  .number()
  .check(z.describe('Approximate longitude in degrees (IP geolocation, not a device position).'));
const radius = z.nullable(z.number().check(z.nonnegative()));

export const TravelRiskResultSchema = z.object({
  risk: z
    .enum(RISK_LEVELS)
    .check(
      z.describe(
        'high when impossibleTravel; medium when the country changed, or effectiveDistanceKm is beyond ' +
          'settings.minDistanceKm, at least settings.minSeconds passed and the implied speed is above half of ' +
          `settings.maxSpeedKmh (${D.maxSpeedKmh / 2} km/h by default: a fast but possible trip); low otherwise, ` +
          'and on the first-ever check.',
      ),
    ),
  impossibleTravel: z
    .boolean()
    .check(
      z.describe(
        "True when, under the account's settings (by default " +
          defaults +
          '), effectiveDistanceKm exceeds minDistanceKm (the error of IP geolocation: nearby cities never ' +
          'count), at least minSeconds passed, and the implied speed exceeds maxSpeedKmh (an airliner ' +
          'cruises at about 900 km/h).',
      ),
    ),
  distanceKm: z
    .nullable(z.number().check(z.nonnegative()))
    .check(
      z.describe(
        'Great-circle distance between the previous and current location, km (0.1 km); null on the first-ever check.',
      ),
    ),
  effectiveDistanceKm: z
    .nullable(z.number().check(z.nonnegative()))
    .check(
      z.describe(
        'The distance the rule used, km (0.1 km): distanceKm less both accuracy radii that are known, never ' +
          'below 0 (equal to distanceKm when neither is). Null on the first-ever check.',
      ),
    ),
  impliedSpeedKmh: z
    .nullable(z.number().check(z.nonnegative()))
    .check(
      z.describe(
        `effectiveDistanceKm divided by elapsed time (at least ${MIN_ELAPSED_SECONDS} s, so an instant move is a ` +
          'finite speed), km/h (0.1); moves within settings.minDistanceKm or under settings.minSeconds are not ' +
          'classified whatever this says. Null on the first-ever check.',
      ),
    ),
  elapsedSeconds: z
    .nullable(z.number().check(z.int(), z.nonnegative()))
    .check(
      z.describe(
        'Whole seconds since the previous observation (0 when the stored one is newer); null on the first-ever check.',
      ),
    ),
  accuracyRadiusKm: z
    .object({
      previous: radius.check(
        z.describe(
          'Accuracy radius of the previous location, km, as stored with it; null when the data gave none, ' +
            'and on the first-ever check.',
        ),
      ),
      current: radius.check(
        z.describe(
          'Accuracy radius of the current location, km (how far the address may be from its coordinates); ' +
            'null when the data gives none.',
        ),
      ),
    })
    .check(z.describe('The accuracy radii taken off distanceKm to give effectiveDistanceKm.')),
  previousLocation: z
    .nullable(
      z.object({
        country,
        latitude,
        longitude,
        observedAt: z.iso.datetime().check(z.describe('When that location was observed (ISO 8601 UTC).')),
      }),
    )
    .check(z.describe('The stored baseline before this call; null on the first-ever check for the userId.')),
  currentLocation: z
    .object({ country, latitude, longitude })
    .check(z.describe('Location of the supplied ip; it becomes the baseline unless commit is false.')),
  settings: z
    .object(travelSettingFields)
    .check(
      z.describe(
        "The account's impossible-travel settings this check applied (GET and PUT /v1/account/travel); " +
          `an account that never set them gets the defaults: ${defaults}.`,
      ),
    ),
});

export type TravelRiskResultDto = z.infer<typeof TravelRiskResultSchema>;
