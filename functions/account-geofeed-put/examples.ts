import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  'office-networks': {
    summary: "Place the company's own egress networks",
    file: 'geofeed.csv',
    contentType: 'text/csv',
    body: '# our offices\n8.8.4.0/24,DE,DE-BE,Berlin,\n2001:4860:4860::/48,FR,FR-IDF,Paris,75002\n',
    response: {
      prefixes: 2,
      bytes: 84,
      updatedAt: '2026-11-24T16:30:00.000Z',
      updatedBy: 'key:key_EysRX1gNUjY5',
    },
  },
};
