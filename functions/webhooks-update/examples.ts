import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with webhooks-update (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  events: {
    summary: 'Receive the end of list jobs too',
    params: { id: 'we_3kTq9vXo2LmN8pRs' },
    body: { events: ['usage.threshold', 'job.completed', 'job.failed'] },
    response: {
      id: 'we_3kTq9vXo2LmN8pRs',
      url: 'https://hooks.example.com/netintel',
      events: ['usage.threshold', 'job.completed', 'job.failed'],
      description: 'Billing alerts',
      status: 'enabled',
      createdAt: '2026-11-24T16:30:00.000Z',
      updatedAt: '2026-11-24T16:30:00.000Z',
      previousSecretExpiresAt: null,
      disabledAt: null,
      disabledReason: null,
    },
  },
};
