import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with webhooks-redeliver (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  again: {
    summary: 'The test event, once more',
    params: { id: 'we_3kTq9vXo2LmN8pRs' },
    body: { eventId: 'evt_pV4mQ8sK2nX6tB0wR3yZ7cJ1' },
    response: { eventId: 'evt_pV4mQ8sK2nX6tB0wR3yZ7cJ1', endpointId: 'we_3kTq9vXo2LmN8pRs', queued: true },
  },
};
