import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with webhooks-list (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  one: {
    summary: 'An account with one endpoint',
    response: {
      endpoints: [
        {
          id: 'we_3kTq9vXo2LmN8pRs',
          url: 'https://hooks.example.com/netintel',
          events: ['usage.threshold'],
          description: 'Billing alerts',
          status: 'enabled',
          createdAt: '2026-11-24T16:30:00.000Z',
          updatedAt: '2026-11-24T16:30:00.000Z',
          previousSecretExpiresAt: null,
          disabledAt: null,
          disabledReason: null,
        },
      ],
    },
  },
};
