import type { RouteExample } from '../lib/http/contract.js';
import { GOOGLE_DNS, PRIVATE_ADDRESS } from '../lookup-ip/examples.js';

// Real exchanges with lookup-batch (see RouteExample): test/integration/docs.cases.ts replays each one.

/** A batch result is the single lookup's without the two fields a batch does not offer. */
function batchResult(single: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { userAgent: _userAgent, hostname: _hostname, ...result } = single;
  return result;
}

export const examples: Record<string, RouteExample> = {
  two: {
    summary: 'A public and a private address',
    body: {
      ips: ['8.8.8.8', '10.0.0.1'],
    },
    response: {
      results: [batchResult(GOOGLE_DNS), batchResult(PRIVATE_ADDRESS)],
    },
  },
};
