import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with webhooks-rotate (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  overlap: {
    summary: 'A new secret; the old one signs for another hour',
    params: { id: 'we_3kTq9vXo2LmN8pRs' },
    body: { overlapSeconds: 3600 },
    response: {
      id: 'we_3kTq9vXo2LmN8pRs',
      url: 'https://hooks.example.com/netintel',
      events: ['usage.threshold', 'job.completed', 'job.failed'],
      description: 'Billing alerts',
      status: 'enabled',
      createdAt: '2026-11-24T16:30:00.000Z',
      updatedAt: '2026-11-24T16:30:00.000Z',
      previousSecretExpiresAt: '2026-11-24T17:30:00.000Z',
      disabledAt: null,
      disabledReason: null,
      secret: 'whsec_Qw8rT2yU6iO0pA4sD8fG1hJ5kL9zX3cV7bN1mQ5wE9r',
    },
  },
};
