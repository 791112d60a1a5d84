import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with risk-baseline-delete (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  delete: {
    summary: "Forget a user's baseline",
    body: {
      userId: 'user-42',
    },
  },
};
