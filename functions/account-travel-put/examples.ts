import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  'ignore-small-hops': {
    summary: 'Never flag hops under 50 km or 10 minutes; impossible above 900 km/h',
    body: { maxSpeedKmh: 900, minDistanceKm: 50, minSeconds: 600 },
    response: {
      maxSpeedKmh: 900,
      minDistanceKm: 50,
      minSeconds: 600,
      updatedAt: '2026-11-24T16:30:00.000Z',
      updatedBy: 'key:key_EysRX1gNUjY5',
    },
  },
};
