import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with webhooks-create (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  created: {
    summary: 'An endpoint for the usage thresholds',
    body: {
      url: 'https://hooks.example.com/netintel',
      events: ['usage.threshold'],
      description: 'Billing alerts',
    },
    response: {
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
      secret: 'whsec_Jb2mE0uZ4cS8yQ1wR6tV3xN5pL7kH9aD0fG2jM4oI6e',
    },
  },
};
