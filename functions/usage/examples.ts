import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with usage (see RouteExample): test/integration/docs.cases.ts replays each one,
// last, a minute after the others: its figures are the billed calls of every example before it.
export const examples: Record<string, RouteExample> = {
  'last-days': {
    summary: 'This minute, this month and the last 3 days',
    query: {
      days: '3',
    },
    response: {
      accountId: 'acct_3f9c2a7b5d1e4f608a9b',
      plan: 'pro',
      month: '2026-11',
      thisMinute: {
        used: 1,
        limit: 1200,
        resetsAt: '2026-11-24T17:02:00.000Z',
      },
      thisMonth: {
        used: 23,
        cap: 2000000,
        remaining: 1999977,
      },
      perKind: {
        geo: 1,
        lookup: 4,
        email: 14,
        signup: 2,
        risk: 2,
      },
      days: [
        { date: '2026-11-22', geo: 0, lookup: 0, email: 0, signup: 0, risk: 0, total: 0 },
        { date: '2026-11-23', geo: 0, lookup: 0, email: 0, signup: 0, risk: 0, total: 0 },
        { date: '2026-11-24', geo: 1, lookup: 4, email: 14, signup: 2, risk: 2, total: 23 },
      ],
    },
  },
};
