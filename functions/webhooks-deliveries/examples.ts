import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with webhooks-deliveries (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  none: {
    summary: 'A new endpoint: nothing delivered yet',
    params: { id: 'we_3kTq9vXo2LmN8pRs' },
    query: { limit: '20' },
    response: { deliveries: [], nextCursor: null },
  },
};
