import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  'as-uploaded': {
    summary: 'The feed uploaded above',
    file: 'geofeed.csv',
    response: '# our offices\n8.8.4.0/24,DE,DE-BE,Berlin,\n2001:4860:4860::/48,FR,FR-IDF,Paris,75002\n',
  },
};
