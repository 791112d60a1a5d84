import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with webhooks-test (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  queued: {
    summary: 'A test event on its way',
    params: { id: 'we_3kTq9vXo2LmN8pRs' },
    response: { eventId: 'evt_pV4mQ8sK2nX6tB0wR3yZ7cJ1', endpointId: 'we_3kTq9vXo2LmN8pRs', queued: true },
  },
};
