import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  defaults: {
    summary: 'An account that never changed them: the defaults',
    response: { maxSpeedKmh: 1000, minDistanceKm: 200, minSeconds: 0, updatedAt: null, updatedBy: null },
  },
};
