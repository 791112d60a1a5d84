import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with risk-check (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  'first-check': {
    summary: "A user's first check (London)",
    body: {
      userId: 'user-42',
      ip: '81.2.69.142',
    },
    response: {
      risk: 'low',
      impossibleTravel: false,
      distanceKm: null,
      effectiveDistanceKm: null,
      impliedSpeedKmh: null,
      elapsedSeconds: null,
      accuracyRadiusKm: {
        previous: null,
        current: null,
      },
      previousLocation: null,
      currentLocation: {
        country: 'GB',
        latitude: 51.51430130004883,
        longitude: -0.09122440218925476,
      },
      settings: {
        maxSpeedKmh: 1000,
        minDistanceKm: 200,
        minSeconds: 0,
      },
    },
  },
  'impossible-travel': {
    summary: '30 minutes later, from California',
    body: {
      userId: 'user-42',
      ip: '8.8.8.8',
    },
    response: {
      risk: 'high',
      impossibleTravel: true,
      distanceKm: 8634.8,
      effectiveDistanceKm: 8634.8,
      impliedSpeedKmh: 17269.3,
      elapsedSeconds: 1800,
      accuracyRadiusKm: {
        previous: null,
        current: null,
      },
      previousLocation: {
        country: 'GB',
        latitude: 51.51430130004883,
        longitude: -0.09122440218925476,
        observedAt: '2026-11-24T16:30:00.000Z',
      },
      currentLocation: {
        country: 'US',
        latitude: 37.422000885009766,
        longitude: -122.08499908447266,
      },
      settings: {
        maxSpeedKmh: 1000,
        minDistanceKm: 200,
        minSeconds: 0,
      },
    },
  },
};
