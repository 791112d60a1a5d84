import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { examplePath } from '../../functions/api-reference/code-samples.js';
import { ErrorSchema } from '../../functions/api-reference/openapi.js';
import type { KeyRouteEntry, KeyRouteName } from '../../functions/api-reference/route-contracts.js';
import { CONTRACTS } from '../../functions/contracts.js';
import type * as z from '../../functions/lib/zod.js';
import { isKeyRoute, ROUTES } from '../../functions/routes.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';
import { type RdapServer, startRdapServer } from '../support/rdap-server.js';

// Contracts validate both ways (in the manner of Powertools' event-handler validation middleware):
// every key route answers a valid example request with a body its published response schema
// accepts, with no field the schema leaves out, and every 4xx with the published error object.

let stack: TestStack;
let dns: DnsServer;
let rdap: RdapServer;

/** The routes called with a key, in table order: the list-job examples build on each other. */
const KEY_ROUTES = ROUTES.filter((r): r is KeyRouteEntry => isKeyRoute(r));

describe('contracts', () => {
  beforeAll(async () => {
    // Every domain of the examples has a mail server here, and no registration date: the answers
    // have their full shape, and no check leaves the machine.
    dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
    rdap = await startRdapServer({ tlds: ['com'], answer: () => 'not_found' });
    process.env.DNS_SERVERS = dns.address;
    // The budget a loopback answer must beat: generous, since a busy 2-core test run once took
    // longer than 400 ms to answer.
    process.env.DNS_BUDGET_MS = '2000';
    process.env.RDAP_BOOTSTRAP_URL = rdap.bootstrapUrl;
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    await rdap.close();
    delete process.env.DNS_SERVERS;
    delete process.env.DNS_BUDGET_MS;
    delete process.env.RDAP_BOOTSTRAP_URL;
  });

  interface Call {
    path: string;
    body?: unknown;
    headers: Record<string, string>;
  }

  /** The job the list-job routes read: created by the jobs-create example. */
  let jobId = '';
  /** The webhook endpoint and event the webhook routes read: made by the webhooks-create and -test examples. */
  let endpointId = '';
  let eventId = '';

  async function waitCompleted(id: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const res = await stack.call('GET', `/v1/email/jobs/${id}`, { headers: stack.secret() });
      if (((await res.json()) as { status: string }).status === 'completed') return;
      await stack.pollers.drained();
    }
    throw new Error(`job ${id} did not complete`);
  }

  /**
   * A valid request: the route's first example (its path parameters, query, headers and body) with
   * a key of the route's type; `params` stand in for the example's path parameters.
   */
  function fromExample(route: KeyRouteEntry, params?: Record<string, string>): Call {
    const example = Object.values(CONTRACTS[route.name].examples)[0]!;
    // stack.call sends a text or a JSON body; a form is fetch's to write (test/integration/docs.cases.ts).
    if (example.contentType === 'multipart/form-data')
      throw new Error(`the first example of ${route.name} is a form: give the route an entry in EXAMPLES`);
    return {
      path: examplePath(route, params ? { ...example, params } : example),
      headers: {
        ...(route.auth === 'secret' ? stack.secret() : stack.browser()),
        ...example.headers,
        ...(example.contentType ? { 'Content-Type': example.contentType } : {}),
      },
      ...(example.body === undefined ? {} : { body: example.body }),
    };
  }

  /**
   * The requests a route's first example cannot make: reading the list job the jobs-create example
   * made in this run (the examples' job id is another deployment's). Every other route is called
   * with its first example.
   */
  const EXAMPLES: Partial<Record<KeyRouteName, (route: KeyRouteEntry) => Promise<Call> | Call>> = {
    'jobs-get': (route) => fromExample(route, { id: jobId }),
    'jobs-results': async (route) => {
      await waitCompleted(jobId);
      return fromExample(route, { id: jobId });
    },
    'webhooks-get': (route) => fromExample(route, { id: endpointId }),
    'webhooks-update': (route) => fromExample(route, { id: endpointId }),
    'webhooks-rotate': (route) => fromExample(route, { id: endpointId }),
    'webhooks-deliveries': (route) => fromExample(route, { id: endpointId }),
    'webhooks-test': (route) => fromExample(route, { id: endpointId }),
    'webhooks-redeliver': (route) => ({ ...fromExample(route, { id: endpointId }), body: { eventId } }),
    'webhooks-delete': (route) => fromExample(route, { id: endpointId }),
  };

  const requestOf = (route: KeyRouteEntry) => (EXAMPLES[route.name] ?? fromExample)(route);

  /** True when `schema` accepts `body` and drops nothing from it: an extra field anywhere fails. */
  function expectExactly(schema: z.ZodMiniType, body: unknown): void {
    const parsed = schema.safeParse(body);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.data).toEqual(body);
  }

  describe('every response matches its published schema', () => {
    test.each(KEY_ROUTES.map((r) => [r.name, r] as const))(
      '%s answers a valid request with exactly its response schema',
      async (name, route) => {
        const contract = CONTRACTS[name];
        const example = await requestOf(route);
        const res = await stack.call(route.method, example.path, {
          headers: example.headers,
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
        if (name === 'webhooks-create') endpointId = (body as { id: string }).id;
        if (name === 'webhooks-test') eventId = (body as { eventId: string }).eventId;
      },
    );
  });

  describe('every 4xx is the published error object', () => {
    test.each(KEY_ROUTES.map((r) => [r.name, r] as const))(
      '%s refuses a call without a key, and a malformed request, with {error, message}',
      async (_name, route) => {
        const example = await requestOf(route);
        const calls = [
          stack.call(route.method, example.path, {}),
          stack.call(route.method, example.path.replace(/\/8\.8\.8\.8/, '/8.8.8'), {
            headers: example.headers,
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
