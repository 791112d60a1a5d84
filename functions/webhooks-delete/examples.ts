import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with webhooks-delete (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  deleted: { summary: 'Delete an endpoint', params: { id: 'we_3kTq9vXo2LmN8pRs' } },
};
