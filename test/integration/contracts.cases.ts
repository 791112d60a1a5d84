import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type * as z from 'zod';
import { ErrorSchema } from '../../functions/api-reference/openapi.js';
import { CONTRACTS } from '../../functions/contracts.js';
import { ROUTES, type RouteName } from '../../functions/routes.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// Contracts validate both ways (in the manner of Powertools' event-handler validation middleware):
// every route answers a valid example request with a body its published response schema accepts,
// with no field the schema leaves out, and every 4xx with the published error object.

let stack: TestStack;
let dns: DnsServer;

describe('contracts', () => {
  beforeAll(async () => {
    dns = await startDnsServer({
      answer: (name) => (name.endsWith('.example') ? [mx(`mx.${name}`)] : 'nxdomain'),
    });
    process.env.DNS_SERVERS = dns.address;
    // The budget a loopback answer must beat: generous, since a busy 2-core test run once took
    // longer than 400 ms to answer, and only the 'silent' name waits it out.
    process.env.DNS_BUDGET_MS = '2000';
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
    delete process.env.DNS_BUDGET_MS;
  });

  interface Call {
    path: string;
    body?: unknown;
    headers?: Record<string, string>;
  }

  /** The job the list-job routes read: created by the jobs-create example. */
  let jobId = '';

  async function waitCompleted(id: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const res = await stack.call('GET', `/v1/email/jobs/${id}`, { headers: stack.secret() });
      if (((await res.json()) as { status: string }).status === 'completed') return;
      await stack.pollers.drained();
    }
    throw new Error(`job ${id} did not complete`);
  }

  /** A valid example request per route (in table order: the job examples build on each other). */
  const EXAMPLES: Record<RouteName, () => Promise<Call> | Call> = {
    geo: () => ({
      path: '/v1/geo?include=hostname',
      headers: { ...stack.browser(), 'X-Forwarded-For': '8.8.8.8' },
    }),
    'lookup-ip': () => ({ path: '/v1/lookup/8.8.8.8?userAgent=Mozilla%2F5.0&include=hostname' }),
    'lookup-batch': () => ({
      path: '/v1/lookup',
      body: { ips: ['8.8.8.8', '2001:4860:4860::8888', '10.0.0.1'] },
    }),
    'email-validate': () => ({
      path: '/v1/email/validate',
      body: { email: 'jane@shop.example' },
      headers: stack.browser(),
    }),
    'email-batch': () => ({
      path: '/v1/email/batch',
      body: { emails: ['jane@shop.example', 'not an address'] },
    }),
    'jobs-create': () => ({ path: '/v1/email/jobs', body: { emails: ['a@shop.example', 'b@shop.example'] } }),
    'jobs-upload': () => ({ path: '/v1/email/jobs/uploads' }),
    'jobs-list': () => ({ path: '/v1/email/jobs?limit=5' }),
    'jobs-get': () => ({ path: `/v1/email/jobs/${jobId}` }),
    'jobs-results': async () => {
      await waitCompleted(jobId);
      return { path: `/v1/email/jobs/${jobId}/results` };
    },
    'signup-check': () => ({
      path: '/v1/signup/check',
      body: { email: 'jane@shop.example', ip: '8.8.8.8', userAgent: 'Mozilla/5.0' },
    }),
    'risk-check': () => ({ path: '/v1/risk/check', body: { userId: 'user-1', ip: '8.8.8.8' } }),
    'risk-baseline-delete': () => ({ path: '/v1/risk/baseline', body: { userId: 'user-1' } }),
    usage: () => ({ path: '/v1/usage?days=3' }),
    data: () => ({ path: '/v1/data' }),
  };

  /** True when `schema` accepts `body` and drops nothing from it: an extra field anywhere fails. */
  function expectExactly(schema: z.ZodType, body: unknown): void {
    const parsed = schema.safeParse(body);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.data).toEqual(body);
  }

  describe('every response matches its published schema', () => {
    test.each(ROUTES.map((r) => [r.name, r] as const))(
      '%s answers a valid request with exactly its response schema',
      async (name, route) => {
        const contract = CONTRACTS[name];
        const example = await EXAMPLES[name]();
        const res = await stack.call(route.method, example.path, {
          headers: example.headers ?? stack.secret(),
          ...(example.body === undefined ? {} : { body: example.body }),
        });
        expect(res.status).toBe(contract.responseStatus ?? 200);
        if (contract.responseStatus === 204) {
          expect(await res.text()).toBe('');
          return;
        }
        if (contract.responseMediaType) {
          expect(res.headers.get('content-type')).toContain(contract.responseMediaType);
          expectExactly(contract.response, await res.text());
          return;
        }
        const body: unknown = await res.json();
        expectExactly(contract.response, body);
        if (name === 'jobs-create') jobId = (body as { id: string }).id;
      },
    );
  });

  describe('every 4xx is the published error object', () => {
    test.each(ROUTES.map((r) => [r.name, r] as const))(
      '%s refuses a call without a key, and a malformed request, with {error, message}',
      async (name, route) => {
        const example = await EXAMPLES[name]();
        const calls = [
          stack.call(route.method, example.path, {}),
          stack.call(route.method, example.path.replace(/\/8\.8\.8\.8/, '/8.8.8'), {
            headers: example.headers ?? stack.secret(),
            ...(example.body === undefined ? {} : { body: { wrong: [] } }),
          }),
        ];
        for (const res of await Promise.all(calls)) {
          if (res.status < 400 || res.status >= 500) continue;
          expectExactly(ErrorSchema, await res.json());
        }
        expect((await calls[0]!).status).toBe(401);
      },
    );
  });
});
