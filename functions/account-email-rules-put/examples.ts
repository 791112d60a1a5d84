import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  'allow-and-block': {
    summary: 'Trust a partner domain, refuse a competitor and a TLD, review relay aliases',
    body: {
      allow: { domains: ['partner.example'] },
      block: { domains: ['competitor.example'], tlds: ['zip'] },
      relayAliases: 'review',
    },
    response: {
      allow: { domains: ['partner.example'], mxHosts: [] },
      block: { domains: ['competitor.example'], mxHosts: [], tlds: ['zip'] },
      relayAliases: 'review',
      entries: 3,
      updatedAt: '2026-11-24T16:30:00.000Z',
      updatedBy: 'key:key_EysRX1gNUjY5',
    },
  },
};
