import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with jobs-get (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  completed: {
    summary: 'A completed job',
    params: {
      id: '1f0c80b2-c823-418b-8e2e-1e3d19c0d855',
    },
    response: {
      id: '1f0c80b2-c823-418b-8e2e-1e3d19c0d855',
      status: 'completed',
      source: 'api',
      filename: 'signups.csv',
      total: 4,
      credits: 3,
      processed: 4,
      summary: {
        verdicts: {
          accept: 2,
          review: 0,
          reject: 2,
        },
        reasons: {
          domain_not_found: 1,
          disposable_domain: 2,
          typo_suspected: 1,
        },
      },
      createdAt: '2026-11-24T16:31:04.127Z',
      completedAt: '2026-11-24T16:31:05.482Z',
      expiresAt: '2026-12-01T16:31:04.127Z',
    },
  },
};
