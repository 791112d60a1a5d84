import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  defaults: {
    summary: 'An account without rules: the global policy alone',
    response: {
      allow: { domains: [], mxHosts: [] },
      block: { domains: [], mxHosts: [], tlds: [] },
      relayAliases: 'accept',
      entries: 0,
      updatedAt: null,
      updatedBy: null,
    },
  },
};
