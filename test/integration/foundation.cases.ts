import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { CONTRACTS } from '../../functions/contracts.js';
import { KEY_ROUTES, type KeyRoute, ROUTES, type Route } from '../../functions/routes.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

let stack: TestStack;

describe('foundation', () => {
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  function concretePath(route: Route, param = '8.8.8.8'): string {
    return route.path.replace(/\{\w+\}/g, encodeURIComponent(param));
  }

  function keyFor(route: KeyRoute): Record<string, string> {
    return route.auth === 'secret' ? stack.secret() : stack.browser();
  }

  describe('route table', () => {
    test('every key route of the table is served (no route is missing)', async () => {
      for (const route of KEY_ROUTES) {
        const res = await stack.call(
          route.method,
          concretePath(route, '00000000-0000-4000-8000-000000000000'),
          {
            headers: { ...keyFor(route), 'Content-Type': 'application/json' },
            body: route.method === 'GET' ? undefined : '{}',
          },
        );
        if (res.status >= 400) {
          const body = (await res.json()) as { error: unknown; message: unknown };
          expect(typeof body.message).toBe('string');
          // A route may answer 404 job_not_found, but never the gateway's "no such route".
          expect(['not_found', 'method_not_allowed']).not.toContain(body.error);
        }
      }
    });

    test('an unknown path is 404 not_found', async () => {
      for (const path of [
        '/v1',
        '/v2/geo',
        '/v1/lookup/1.2.3.4/extra',
        '/v1/email/jobs/x/results/y',
        '/docs/x',
      ]) {
        const res = await stack.call('GET', path, { headers: stack.secret() });
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ error: 'not_found', message: expect.any(String) });
      }
    });

    test('a method the path does not have is 405 method_not_allowed', async () => {
      const res = await stack.call('PATCH', '/v1/lookup', { headers: stack.secret() });
      expect(res.status).toBe(405);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual({ error: 'method_not_allowed', message: expect.any(String) });
    });
  });

  describe('API description', () => {
    test('GET /v1/openapi.json is served without a key and describes every route', async () => {
      const res = await stack.call('GET', '/v1/openapi.json');
      expect(res.status).toBe(200);
      const doc = (await res.json()) as {
        openapi: string;
        paths: Record<string, Record<string, unknown>>;
        info: { description: string };
      };
      expect(doc.openapi).toBe('3.1.0');
      for (const route of ROUTES as readonly Route[]) {
        expect(doc.paths[route.path]?.[route.method.toLowerCase()]).toBeDefined();
      }
      expect(doc.info.description).toContain('CC BY 4.0');
      expect(doc.info.description).toContain('GeoNames');
    });

    test('every key route has a contract with a response schema', () => {
      for (const route of KEY_ROUTES)
        expect(CONTRACTS[route.name as keyof typeof CONTRACTS]?.response).toBeDefined();
    });

    test('GET /docs serves the reference page and its assets', async () => {
      const page = await stack.call('GET', '/docs');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(await page.text()).toContain('<script src="/docs/start.js"></script>');
      const js = await stack.call('GET', '/docs/swagger-ui-bundle.js');
      expect(js.status).toBe(200);
      expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    });
  });

  describe('errors are always {error, message}', () => {
    test('malformed JSON is 400 invalid_json and a wrong content type is 415', async () => {
      const bad = await stack.call('POST', '/v1/lookup', {
        headers: { ...stack.secret(), 'Content-Type': 'application/json' },
        body: '{"ips": [',
      });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toBe('invalid_json');
      const type = await stack.call('POST', '/v1/lookup', {
        headers: { ...stack.secret(), 'Content-Type': 'text/plain' },
        body: 'ips=1.2.3.4',
      });
      expect(type.status).toBe(415);
      expect(((await type.json()) as { error: string }).error).toBe('unsupported_media_type');
    });

    test('a body over the gateway limit is 413 body_too_large', async () => {
      const res = await stack.call('POST', '/v1/email/batch', {
        headers: { ...stack.secret(), 'Content-Type': 'application/json' },
        body: Buffer.alloc(11 * 1024 * 1024, 0x20),
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: string }).error).toBe('body_too_large');
    });

    test('random methods, headers and bodies on every route never give a 5xx or a bare error', async () => {
      const routes = KEY_ROUTES;
      const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
      const contentTypes = [
        'application/json',
        'text/csv',
        'text/plain',
        'application/octet-stream',
        '',
        'application/json; charset=utf-8',
      ];
      const jsonish = fc.oneof(
        fc.json(),
        fc
          .jsonValue()
          .map((v) =>
            JSON.stringify({ ips: v, emails: v, email: v, ip: v, userId: v, userAgent: v, commit: v }),
          ),
        fc.string({ maxLength: 300 }),
        fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
      );
      const auth = fc.constantFrom<'right' | 'wrong' | 'none' | 'garbage'>(
        'right',
        'wrong',
        'none',
        'garbage',
      );
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: routes.length - 1 }),
          fc.constantFrom(...methods),
          fc.constantFrom(...contentTypes),
          jsonish,
          auth,
          fc.string({ maxLength: 60 }),
          async (i, methodPick, contentType, body, authKind, param) => {
            const route = routes[i]!;
            const method = Math.random() < 0.7 ? route.method : methodPick;
            const headers: Record<string, string> = {};
            if (contentType) headers['Content-Type'] = contentType;
            if (authKind === 'right') Object.assign(headers, keyFor(route));
            if (authKind === 'wrong')
              Object.assign(headers, route.auth === 'secret' ? stack.browser() : stack.secret());
            if (authKind === 'garbage')
              headers.Authorization = `Bearer ${param.replace(/[^\x21-\x7e]/g, '')}`;
            const path = concretePath(route, param || 'x');
            const res = await stack.call(method, path, {
              headers,
              body: method === 'GET' || method === 'OPTIONS' ? undefined : body,
            });
            const text = await res.text();
            expect(res.status).toBeLessThan(500);
            if (res.status < 300) return;
            const parsed = JSON.parse(text) as { error: unknown; message: unknown };
            expect(typeof parsed.error).toBe('string');
            expect(typeof parsed.message).toBe('string');
          },
        ),
        { numRuns: 400 },
      );
    });
  });
});
