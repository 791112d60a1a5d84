import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { exampleFile, SAMPLE_ORIGIN } from '../../functions/api-reference/code-samples.js';
import { DOCS_CSP } from '../../functions/api-reference/docs-site.js';
import { buildOpenApi } from '../../functions/api-reference/openapi.js';
import type { KeyRouteEntry } from '../../functions/api-reference/route-contracts.js';
import { CONTRACTS } from '../../functions/contracts.js';
import { DataReportSchema } from '../../functions/lib/data-report.js';
import type { RouteExample } from '../../functions/lib/http/contract.js';
import { isKeyRoute, type KeyRoute, ROUTES } from '../../functions/routes.js';
import { DATA_LAYER_DIR, DATA_LAYER_MANIFEST } from '../../layers/build/data-layer.js';
import { type DnsServer, mx, type Rr, startDnsServer } from '../support/dns-server.js';
import { leftOut } from '../support/left-out.js';
import { clock, startTestStack, type TestStack } from '../support/local-stack.js';
import { type RdapServer, startRdapServer } from '../support/rdap-server.js';

// The API reference at /docs: `/` leads to it, the favicon is served, the page runs under its
// Content-Security-Policy, and every example of the document is what the service answers. Each
// example request of every route is replayed, in route-table order (the list-job examples build on
// each other), against the local stack with the DB-IP Lite data layer, a DNS server answering like
// the real one for the example domains, an RDAP server, and the service clock at the instant the
// examples were taken. Only ids and timestamps of the call, and the implied speed's last digit, may
// differ.

/** When the examples were taken. */
const EXAMPLES_AT = new Date('2026-11-24T16:30:00.000Z');
/** Examples taken later than EXAMPLES_AT (ms after it). The first travel check is at EXAMPLES_AT. */
const TAKEN_AFTER: Record<string, number> = {
  'risk-check/first-check': 0,
  'risk-check/impossible-travel': 30 * 60_000,
  // At the start of a minute of its own: this minute's count and reset are the example's.
  'usage/last-days': 31 * 60_000,
};

/** The real MX hosts of the example domains (and of the DNS canary's); gmial.com is unregistered. */
const MX: Record<string, string> = {
  'gmail.com': 'gmail-smtp-in.l.google.com',
  'outlook.com': 'outlook-com.olc.protection.outlook.com',
  'yahoo.com': 'mta5.am0.yahoodns.net',
  'mailinator.com': 'mail.mailinator.com',
};
const PTR: Rr = { type: 12, domain: 'dns.google' } as never;

let stack: TestStack;
let dns: DnsServer;
let rdap: RdapServer;

describe('docs', () => {
  beforeAll(async () => {
    dns = await startDnsServer({
      canary: false,
      answer: (name) => {
        if (MX[name]) return [mx(MX[name])];
        if (name === '8.8.8.8.in-addr.arpa') return [PTR];
        return 'nxdomain';
      },
    });
    rdap = await startRdapServer({
      tlds: ['com'],
      answer: (domain) =>
        domain === 'mailinator.com' ? { registered: '2002-10-08T04:00:00Z' } : 'not_found',
    });
    process.env.DNS_SERVERS = dns.address;
    process.env.DNS_BUDGET_MS = '2000';
    process.env.RDAP_BOOTSTRAP_URL = rdap.bootstrapUrl;
    clock.set(EXAMPLES_AT);
    // GET /v1/geo locates the connecting address: X-Forwarded-For stands in for the visitor's.
    stack = await startTestStack({ trustForwardedFor: true });
  });
  afterAll(async () => {
    clock.thaw();
    await stack?.close();
    await dns?.close();
    await rdap?.close();
    delete process.env.DNS_SERVERS;
    delete process.env.DNS_BUDGET_MS;
    delete process.env.RDAP_BOOTSTRAP_URL;
  });

  describe('the site around the reference', () => {
    test('/ redirects to /docs', async () => {
      const res = await fetch(`${stack.url}/`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/docs');
    });

    test('/favicon.ico is served as an SVG image with cache headers', async () => {
      const res = await stack.call('GET', '/favicon.ico');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
      expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
      expect(await res.text()).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    });

    test('/docs runs under its Content-Security-Policy, with no inline script, and its files are served', async () => {
      const page = await stack.call('GET', '/docs');
      expect(page.headers.get('content-security-policy')).toBe(DOCS_CSP);
      expect(DOCS_CSP).not.toContain('unsafe-inline');
      const html = await page.text();
      const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attributes, body] of scripts) {
        expect(attributes).toMatch(/ src="\/docs\/[^"]+"/);
        expect(body).toBe('');
      }
      const files = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!);
      for (const file of files) {
        const res = await stack.call('GET', file);
        expect([file, res.status]).toEqual([file, 200]);
      }
      const start = await stack.call('GET', '/docs/start.js');
      expect(start.headers.get('content-type')).toContain('javascript');
      expect(await start.text()).toContain('/v1/openapi.json');
    });
  });

  const ISO_INSTANT = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const UUID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

  /**
   * Fields whose value belongs to one call: ids (the account's too: each stack seeds its own), the
   * times a job, an upload or a change of rules was made (and the key that made it), where a storage upload goes (presigned per call), the cursor built
   * from them, and the implied speed's last digit (it divides by the exact milliseconds between two
   * checks).
   */
  const OF_THE_CALL: Record<string, (value: unknown) => unknown> = {
    // A job's id, or a webhook endpoint's (we_…).
    id: (v) => (String(v).startsWith('we_') ? expect.stringMatching(/^we_[\w-]+$/) : UUID),
    endpointId: () => expect.stringMatching(/^we_[\w-]+$/),
    eventId: () => expect.stringMatching(/^evt_[\w-]+$/),
    // A webhook endpoint's signing secret, shown at creation and rotation.
    secret: () => expect.stringMatching(/^whsec_[\w-]{43}$/),
    previousSecretExpiresAt: (v) => (v === null ? null : ISO_INSTANT),
    accountId: () => expect.stringMatching(/^acct_[0-9a-f]{20}$/),
    uploadId: () => UUID,
    createdAt: () => ISO_INSTANT,
    completedAt: (v) => (v === null ? null : ISO_INSTANT),
    expiresAt: () => ISO_INSTANT,
    observedAt: () => ISO_INSTANT,
    nextCursor: (v) => (v === null ? null : expect.any(String)),
    uploadUrl: () => expect.any(String),
    fields: () => expect.any(Object),
    impliedSpeedKmh: (v) => (v === null ? null : expect.closeTo(v as number, -1)),
    // When and by which key the account's rules were changed (docs/rules.md).
    updatedAt: (v) => (v === null ? null : ISO_INSTANT),
    updatedBy: (v) => (v === null ? null : expect.stringMatching(/^key:key_[\w-]+$/)),
  };

  /**
   * The examples were recorded on a data layer built with ../shared/data (postal codes, the security
   * lists). A fresh clone's layer has neither: there these fields (and the signup score they feed)
   * are only checked for their type, and the rest of each answer must still be exactly the example.
   */
  const LAYER_HAS_SHARED_DATA = (
    JSON.parse(readFileSync(join(DATA_LAYER_DIR, DATA_LAYER_MANIFEST), 'utf8')) as { builtWith: string }
  ).builtWith.includes('../shared/data');
  const OF_SHARED_DATA: Record<string, (value: unknown) => unknown> = {
    postalCode: () => ({
      asymmetricMatch: (x: unknown) => x === null || typeof x === 'string',
      toAsymmetricMatcher: () => 'null or a postal code',
    }),
    security: (v) => Object.fromEntries(Object.keys(v as object).map((flag) => [flag, expect.any(Boolean)])),
    score: () => expect.any(Number),
    verdict: () => expect.any(String),
    reasons: () => expect.any(Array),
  };
  if (!LAYER_HAS_SHARED_DATA)
    leftOut(
      'docs examples: postal codes, security flags and signup scores compared by type only (the data layer was built without ../shared/data)',
    );

  /** Routes whose answers carry postal codes, security flags or a score built on them. */
  const FROM_SHARED_DATA = new Set(['geo', 'lookup-ip', 'lookup-batch', 'signup-check']);

  /**
   * The example response with the values of OF_THE_CALL replaced by what such a value looks like
   * (and, with `byType`, those of OF_SHARED_DATA).
   */
  function expected(value: unknown, byType = false): unknown {
    if (Array.isArray(value)) return value.map((v) => expected(v, byType));
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (OF_THE_CALL[k]) return [k, OF_THE_CALL[k](v)];
        if (byType && OF_SHARED_DATA[k] && v !== null) return [k, OF_SHARED_DATA[k](v)];
        return [k, expected(v, byType)];
      }),
    );
  }

  /** Ids of the examples (jobs, webhook endpoints and events) -> ids of what the replayed examples made. */
  const jobIds = new Map<string, string>();

  async function jobsCompleted(): Promise<void> {
    for (const id of jobIds.values()) {
      for (let i = 0; i < 200; i++) {
        const res = await stack.call('GET', `/v1/email/jobs/${id}`, { headers: stack.secret() });
        if (((await res.json()) as { status: string }).status === 'completed') break;
        await stack.pollers.drained();
      }
    }
  }

  function requestOf(route: KeyRoute, example: RouteExample) {
    const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = example.params![name]!;
      return encodeURIComponent(jobIds.get(value) ?? value);
    });
    const query = new URLSearchParams(example.query ?? {}).toString();
    const headers: Record<string, string> = {
      ...(route.auth === 'secret' ? stack.secret() : stack.browser(SAMPLE_ORIGIN)),
      ...example.headers,
    };
    if (route.name === 'geo') headers['X-Forwarded-For'] = (example.response as { ip: string }).ip;
    if (example.contentType === 'multipart/form-data') {
      // fetch writes the form and its Content-Type (with the boundary), as the samples let it.
      const form = new FormData();
      form.append('file', new Blob([example.body as string], { type: 'text/csv' }), exampleFile(example));
      return { path: query ? `${path}?${query}` : path, headers, form };
    }
    if (example.contentType) headers['Content-Type'] = example.contentType;
    // An id an earlier example made (a webhook event's), in place of the one the example shows.
    const body =
      example.body && typeof example.body === 'object' && 'eventId' in example.body
        ? { ...example.body, eventId: jobIds.get(String(example.body.eventId)) ?? example.body.eventId }
        : example.body;
    return { path: query ? `${path}?${query}` : path, headers, body };
  }

  /** The OpenAPI document GET /v1/openapi.json serves. */
  const DOCUMENT = buildOpenApi(ROUTES, CONTRACTS) as unknown as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>
    >;
  };

  // The key routes' examples: the dashboard's routes and the API description have none.
  const EXCHANGES = ROUTES.filter((r): r is KeyRouteEntry => isKeyRoute(r)).flatMap((route) =>
    Object.entries(CONTRACTS[route.name].examples).map(
      ([name, example]) => [`${route.name}/${name}`, route, example] as const,
    ),
  );

  describe('every example of the reference is what the service answers', () => {
    test.each(EXCHANGES)('%s', async (id, route, example) => {
      const contract = CONTRACTS[route.name];
      if (route.name.startsWith('jobs-') && route.name !== 'jobs-create') await jobsCompleted();
      // Frozen, not set: an example that shows elapsed seconds must not depend on how long the
      // request took to reach its handler on a busy machine (1801 s instead of 1800 once).
      if (id in TAKEN_AFTER) clock.freeze(new Date(EXAMPLES_AT.getTime() + TAKEN_AFTER[id]!));
      else clock.thaw();
      const request = requestOf(route, example);
      const res = request.form
        ? await fetch(stack.url + request.path, {
            method: route.method,
            headers: request.headers,
            body: request.form,
          })
        : await stack.call(route.method, request.path, request);

      expect(res.status).toBe(contract.responseStatus ?? 200);
      // The headers the reference declares on the answer are on it, and the data version only where declared.
      const declared = Object.keys(
        DOCUMENT.paths[route.path]![route.method.toLowerCase()]!.responses[String(res.status)]?.headers ?? {},
      );
      expect(declared.filter((name) => !res.headers.has(name))).toEqual([]);
      if (res.headers.has('x-data-version')) expect(declared).toContain('X-Data-Version');
      if (example.response === undefined) {
        expect(await res.text()).toBe('');
      } else if (contract.responseMediaType) {
        expect(await res.text()).toBe(example.response);
      } else if (route.name === 'data') {
        // The deployment's own data: versions, counts and dates differ; the shape is the example's.
        const body = DataReportSchema.parse(await res.json());
        expect(Object.keys(body.datasets[0] ?? {}).sort()).toEqual(
          Object.keys((example.response as { datasets: object[] }).datasets[0] as object).sort(),
        );
      } else {
        const body = (await res.json()) as Record<string, unknown>;
        expect(body).toEqual(
          expected(example.response, !LAYER_HAS_SHARED_DATA && FROM_SHARED_DATA.has(route.name)),
        );
        if (route.name === 'jobs-create' || route.name === 'webhooks-create')
          jobIds.set((example.response as { id: string }).id, body.id as string);
        if (route.name === 'webhooks-test')
          jobIds.set((example.response as { eventId: string }).eventId, body.eventId as string);
        if (route.name === 'jobs-upload') {
          // The same form fields, but for the session token AWS adds with a Lambda's role credentials.
          const shown = Object.keys((example.response as { fields: object }).fields);
          expect(Object.keys(body.fields as object).sort()).toEqual(
            shown.filter((f) => f !== 'X-Amz-Security-Token').sort(),
          );
        }
      }
    });
  });
});
