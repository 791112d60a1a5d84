import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with jobs-list (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  'first-page': {
    summary: 'The newest job, and a cursor to the next page',
    query: {
      limit: '1',
    },
    response: {
      jobs: [
        {
          id: 'd3c4d107-2c44-4e71-9b9e-219f0f5fb7de',
          status: 'completed',
          source: 'api',
          filename: 'newsletter.csv',
          total: 2,
          credits: 2,
          processed: 2,
          summary: {
            verdicts: {
              accept: 1,
              review: 1,
              reject: 0,
            },
            reasons: {
              role_account: 1,
            },
          },
          createdAt: '2026-11-24T16:32:17.903Z',
          completedAt: '2026-11-24T16:32:18.655Z',
          expiresAt: '2026-12-01T16:32:17.903Z',
        },
      ],
      nextCursor:
        'eyJjIjoiMjAyNi0xMS0yNFQxNjozMjoxNy45MDNaIiwiaSI6ImQzYzRkMTA3LTJjNDQtNGU3MS05YjllLTIxOWYwZjVmYjdkZSJ9',
    },
  },
};
