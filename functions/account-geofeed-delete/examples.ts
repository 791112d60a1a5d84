import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  remove: { summary: 'Back to the data alone for every address' },
};
