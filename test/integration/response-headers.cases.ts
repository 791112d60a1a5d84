import { afterAll, afterEach, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { SITE_CACHE_CONTROL } from '../../functions/api-reference/site-cache-control.js';
import { AUTH_MESSAGES } from '../../functions/lib/accounts/auth-messages.js';
import { accountStore } from '../../functions/lib/aws/services.js';
import { minuteWindow } from '../../functions/lib/limits/windows.js';
import { accessLogger, logger } from '../../functions/lib/observability.js';
import { afterKeyCache, freshMinute, startTestStack, type TestStack } from '../support/local-stack.js';

// Responses that help debugging (docs/api.md: Errors, Limits; docs/operations.md: Logs): one message per 401 case, the
// request id on every answer and every log line, the minute's limit on every counted call, what is
// left of the month on its 429, Allow on a 405, where a body stops being JSON, and an access log
// that names a refused origin and never holds a key in full.

let stack: TestStack;

describe('response-headers', () => {
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  async function newAccount(overrides: { perMinute?: number; monthlyCap?: number } = {}) {
    const account = await accountStore(stack.services).createAccount('pro', {
      email: 'ops@customer.example',
      ...overrides,
    });
    const secret = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    return { secret, bearer: { Authorization: `Bearer ${secret.key}` } };
  }

  async function errorOf(res: Response): Promise<{ error: string; message: string; remaining?: number }> {
    return (await res.json()) as { error: string; message: string; remaining?: number };
  }

  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

  describe('each 401 says what is wrong with the key, under the one code invalid_api_key', () => {
    test('no key, a malformed key, no Bearer, an unknown key, a key in the wrong place, two keys', async () => {
      const unknown = `ni_sec_${'A'.repeat(32)}`;
      const cases: [string, string, Record<string, string>, string][] = [
        ['DELETE', '/v1/risk/baseline', {}, AUTH_MESSAGES.noKey],
        ['DELETE', '/v1/risk/baseline', { Authorization: 'Bearer nope' }, AUTH_MESSAGES.malformedKey],
        [
          'DELETE',
          '/v1/risk/baseline',
          { Authorization: stack.dev.secretKey },
          AUTH_MESSAGES.malformedAuthorization,
        ],
        ['DELETE', '/v1/risk/baseline', { Authorization: `Bearer ${unknown}` }, AUTH_MESSAGES.unknownKey],
        [
          'DELETE',
          '/v1/risk/baseline',
          { 'X-Api-Key': stack.dev.secretKey },
          AUTH_MESSAGES.secretOutsideBearer,
        ],
        [
          'GET',
          '/v1/geo',
          { Authorization: `Bearer ${stack.dev.publishableKey}`, Origin: 'http://localhost:5173' },
          AUTH_MESSAGES.publishableAsBearer,
        ],
        [
          'DELETE',
          '/v1/risk/baseline',
          { Authorization: `Bearer ${stack.dev.secretKey}`, 'X-Api-Key': unknown },
          AUTH_MESSAGES.twoKeys,
        ],
      ];
      for (const [method, path, headers, message] of cases) {
        const res = await stack.call(method, path, {
          headers,
          body: method === 'GET' ? undefined : { userId: 'u1' },
        });
        expect({ path, headers, status: res.status, body: await errorOf(res) }).toEqual({
          path,
          headers,
          status: 401,
          body: { error: 'invalid_api_key', message },
        });
      }
    });

    test('a revoked key is refused as unknown or revoked', async () => {
      const { secret, bearer } = await newAccount();
      await accountStore(stack.services).revokeKey(secret.keyId);
      afterKeyCache();

      const res = await stack.call('DELETE', '/v1/risk/baseline', {
        headers: bearer,
        body: { userId: 'u1' },
      });

      expect(res.status).toBe(401);
      expect(await errorOf(res)).toEqual({ error: 'invalid_api_key', message: AUTH_MESSAGES.unknownKey });
    });

    test('a page can read why its key was refused: the 401 echoes its Origin', async () => {
      const res = await stack.call('GET', '/v1/geo', {
        headers: { 'X-Api-Key': 'ni_pub_short', Origin: 'https://shop.customer.example' },
      });

      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.customer.example');
      expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
      expect((await errorOf(res)).message).toBe(AUTH_MESSAGES.malformedKey);
    });

    test('the wrong key type says which type the route takes, in plain words', async () => {
      const res = await stack.call('DELETE', '/v1/risk/baseline', {
        headers: { 'X-Api-Key': stack.dev.publishableKey, Origin: 'http://localhost:5173' },
        body: { userId: 'u1' },
      });

      expect(res.status).toBe(403);
      expect(await errorOf(res)).toEqual({
        error: 'wrong_key_type',
        message: 'This route takes a secret key; a publishable key was sent.',
      });
    });
  });

  describe('X-Request-Id on every answer', () => {
    test('200, 401 (gateway and function), 403, 404, 405, 413, 429, OPTIONS and the docs each carry their own id', async () => {
      const { bearer } = await newAccount({ perMinute: 1 });
      freshMinute();
      const calls: [string, string, { headers?: Record<string, string>; body?: unknown }, number][] = [
        ['GET', '/v1/lookup/8.8.8.8', { headers: bearer }, 200],
        ['GET', '/v1/lookup/8.8.8.8', { headers: bearer }, 429],
        ['GET', '/v1/lookup/8.8.8.8', {}, 401],
        ['GET', '/v1/lookup/8.8.8.8', { headers: { Authorization: 'Bearer x' } }, 401],
        ['GET', '/v1/geo', { headers: { ...stack.browser('https://evil.example') } }, 403],
        ['GET', '/v1/nope', {}, 404],
        ['PATCH', '/v1/lookup', {}, 405],
        [
          'POST',
          '/v1/lookup',
          { headers: stack.secret(), body: { ips: ['x'.repeat(1024 * 1024 + 1)] } },
          413,
        ],
        ['OPTIONS', '/v1/geo', { headers: { Origin: 'http://localhost:5173' } }, 204],
        ['GET', '/v1/openapi.json', {}, 200],
        ['GET', '/docs', {}, 200],
      ];
      const ids: string[] = [];
      for (const [method, path, init, status] of calls) {
        const res = await stack.call(method, path, init);
        const id = res.headers.get('x-request-id') ?? '';
        expect({ method, path, status: res.status, id: UUID.test(id) }).toEqual({
          method,
          path,
          status,
          id: true,
        });
        ids.push(id);
        await res.arrayBuffer();
      }
      expect(new Set(ids).size).toBe(ids.length);
    });
  });

  describe('Cache-Control', () => {
    test("no answer about a caller is kept by a browser or proxy: no-store on the API's answers and refusals", async () => {
      const calls: [string, string, { headers?: Record<string, string>; body?: unknown }, number][] = [
        [
          'GET',
          `/v1/geo?key=${stack.dev.publishableKey}`,
          { headers: { Origin: 'http://localhost:5173' } },
          200,
        ],
        ['GET', '/v1/lookup/8.8.8.8', { headers: stack.secret() }, 200],
        ['POST', '/v1/lookup', { headers: stack.secret(), body: { ips: ['8.8.8.8'] } }, 200],
        ['GET', '/v1/usage', { headers: stack.secret() }, 200],
        ['GET', '/v1/lookup/nope', { headers: stack.secret() }, 400],
        ['GET', '/v1/geo', { headers: stack.browser('https://evil.example') }, 403],
      ];
      for (const [method, path, init, status] of calls) {
        const res = await stack.call(method, path, init);
        await res.arrayBuffer();
        expect({ path, status: res.status, cache: res.headers.get('cache-control') }).toEqual({
          path,
          status,
          cache: 'no-store',
        });
      }
      // The reference keeps its own (a site that may be cached): the document as its page.
      const docs = await stack.call('GET', '/v1/openapi.json');
      await docs.arrayBuffer();
      const page = await stack.call('GET', '/docs');
      await page.arrayBuffer();
      expect(docs.headers.get('cache-control')).toBe(SITE_CACHE_CONTROL);
      expect(page.headers.get('cache-control')).toBe(SITE_CACHE_CONTROL);
    });
  });

  describe('X-RateLimit-* on every counted call (docs/api.md: Limits)', () => {
    test('Remaining counts down through the minute; the 429 says 0 and when the minute ends', async () => {
      const { bearer } = await newAccount({ perMinute: 3 });
      const start = freshMinute();
      const reset = String((minuteWindow(start) + 1) * 60);

      const seen: (string | null)[][] = [];
      for (let i = 0; i < 4; i++) {
        const res = await stack.call('GET', '/v1/lookup/8.8.8.8', { headers: bearer });
        seen.push([
          String(res.status),
          res.headers.get('x-ratelimit-limit'),
          res.headers.get('x-ratelimit-remaining'),
          res.headers.get('x-ratelimit-reset'),
        ]);
        await res.arrayBuffer();
      }

      expect(seen).toEqual([
        ['200', '3', '2', reset],
        ['200', '3', '1', reset],
        ['200', '3', '0', reset],
        ['429', '3', '0', reset],
      ]);
    });

    test('a call refused by validation counts in the minute and says so too', async () => {
      const { bearer } = await newAccount({ perMinute: 5 });
      freshMinute();

      const res = await stack.call('GET', '/v1/lookup/not-an-ip', { headers: bearer });

      expect(res.status).toBe(400);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
    });

    test('a 404 for an unknown path carries none: nothing counted it', async () => {
      const res = await stack.call('GET', '/v1/no-such-route', { headers: stack.secret() });

      expect(res.status).toBe(404);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      expect((await errorOf(res)).error).toBe('not_found');
    });

    test('a browser may read them', async () => {
      const res = await stack.call('GET', '/v1/geo', {
        headers: { ...stack.browser(), 'X-Forwarded-For': '8.8.8.8' },
      });

      expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
      expect(res.headers.get('access-control-expose-headers')?.split(', ')).toEqual(
        expect.arrayContaining(['X-Request-Id', 'Retry-After', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
      );
    });
  });

  describe('a monthly 429 says what is left of the month and when it resets', () => {
    test('the body names `remaining`, the header X-Monthly-Remaining, the message the reset', async () => {
      const { bearer } = await newAccount({ monthlyCap: 5 });
      const body = { ips: ['8.8.8.8', '8.8.4.4', '1.1.1.1'] };
      expect((await stack.call('POST', '/v1/lookup', { headers: bearer, body })).status).toBe(200);

      const res = await stack.call('POST', '/v1/lookup', { headers: bearer, body });

      expect(res.status).toBe(429);
      expect(res.headers.get('x-monthly-remaining')).toBe('2');
      // Refused before the minute counted it: no X-RateLimit-* (the API reference declares none for it).
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
      const error = await errorOf(res);
      expect(error).toMatchObject({ error: 'monthly_limit_exceeded', remaining: 2 });
      expect(error.message).toMatch(
        /^This request needs 3 requests; 2 requests remain of the monthly cap until it resets at \d{4}-\d\d-01T00:00:00Z\. Nothing was charged\.$/,
      );
    });
  });

  describe('405 names the methods the path takes', () => {
    test('Allow lists them, with OPTIONS on a browser route', async () => {
      const cases: [string, string, string[]][] = [
        ['PATCH', '/v1/lookup', ['POST']],
        ['DELETE', '/v1/geo', ['GET', 'OPTIONS']],
        ['PUT', '/v1/email/jobs', ['GET', 'POST']],
        ['POST', '/v1/openapi.json', ['GET']],
      ];
      for (const [method, path, allowed] of cases) {
        const res = await stack.call(method, path, { headers: stack.secret() });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')?.split(', ').sort()).toEqual(allowed);
        expect(res.headers.get('x-ratelimit-limit')).toBeNull();
        expect((await errorOf(res)).error).toBe('method_not_allowed');
      }
    });
  });

  describe('invalid_json says where the body stops being JSON', () => {
    test('line and column, and nothing of the body', async () => {
      const res = await stack.call('POST', '/v1/lookup', {
        headers: { ...stack.secret(), 'Content-Type': 'application/json' },
        body: '{\n  "ips": ["8.8.8.8", "secret-looking-value",]\n}',
      });

      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error).toEqual({
        error: 'invalid_json',
        message: 'The body is not valid JSON: expected a value at line 2, column 45.',
      });
    });

    test('a leading byte order mark (as Windows tools write) is ignored on a lookup and a list job', async () => {
      const json = { 'Content-Type': 'application/json' };
      const lookup = await stack.call('POST', '/v1/lookup', {
        headers: { ...stack.secret(), ...json },
        body: '\ufeff{"ips": ["8.8.8.8"]}',
      });
      expect(lookup.status).toBe(200);
      const job = await stack.call('POST', '/v1/email/jobs', {
        headers: { ...stack.secret(), ...json },
        body: '\ufeff{"emails": ["a@gmail.com"]}',
      });
      expect(job.status).toBe(202);
    });

    test('a body nesting a hundred thousand levels is a 400 on every kind of route, never a 500', async () => {
      const deep = '['.repeat(100_000);
      const json = { 'Content-Type': 'application/json' };
      const calls: [method: string, path: string, headers: Record<string, string>][] = [
        ['POST', '/v1/lookup', { ...stack.secret(), ...json }],
        ['POST', '/v1/email/validate', { ...stack.browser(), ...json }],
        ['PUT', '/v1/account/travel', { ...stack.secret(), ...json }],
        ['POST', '/v1/dashboard/sign-in', json],
      ];
      for (const [method, path, headers] of calls) {
        const res = await stack.call(method, path, { headers, body: deep });
        expect([path, res.status]).toEqual([path, 400]);
        expect(await errorOf(res)).toEqual({ error: 'invalid_json', message: 'The body is not valid JSON.' });
      }
      // A mistake before the depth the message reader follows is still placed.
      const res = await stack.call('POST', '/v1/lookup', {
        headers: { ...stack.secret(), ...json },
        body: `{"ips": oops, "x": ${deep}`,
      });
      expect(await errorOf(res)).toEqual({
        error: 'invalid_json',
        message: 'The body is not valid JSON: unexpected character at line 1, column 9.',
      });
    });
  });

  describe('the access log (docs/operations.md: Logs)', () => {
    let lines: Record<string, unknown>[] = [];
    let restore: () => void = () => undefined;

    /** Runs calls with the log at INFO, written lines captured as Powertools JSON. */
    async function logged<T>(run: () => Promise<T>): Promise<T> {
      lines = [];
      // What the functions' logger writes (standard output: every line of this file's runs is INFO).
      const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
        for (const line of String(chunk).split('\n').filter(Boolean)) {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
        return true;
      });
      restore = () => write.mockRestore();
      logger.setLogLevel('INFO');
      accessLogger.setLogLevel('INFO');
      try {
        return await run();
      } finally {
        logger.setLogLevel('SILENT');
        accessLogger.setLogLevel('SILENT');
        restore();
      }
    }
    afterEach(() => restore());

    const accessLine = (id: string) =>
      lines.find(
        (l) =>
          l.correlation_id === id && typeof l.status === 'number' && /^[A-Z]+ \//.test(String(l.message)),
      );

    test('one line per request under its X-Request-Id, with status, route and time', async () => {
      const res = await logged(() => stack.call('GET', '/v1/lookup/8.8.8.8', { headers: stack.secret() }));
      const id = res.headers.get('x-request-id')!;

      expect(accessLine(id)).toMatchObject({
        level: 'INFO',
        message: 'GET /v1/lookup/8.8.8.8 200',
        status: 200,
        route: 'lookup-ip',
        durationMs: expect.any(Number),
      });
    });

    test('a 403 for a refused origin names that origin (the browser cannot read the body)', async () => {
      const res = await logged(() =>
        stack.call('GET', '/v1/geo', { headers: stack.browser('https://evil.example') }),
      );
      const id = res.headers.get('x-request-id')!;

      expect(res.status).toBe(403);
      expect(accessLine(id)).toMatchObject({
        status: 403,
        error: 'origin_not_allowed',
        refusedOrigin: 'https://evil.example',
      });
      // The authorizer's own line carries the same request id.
      expect(lines.find((l) => l.message === 'request refused by authorizer')).toMatchObject({
        correlation_id: id,
        refusedOrigin: 'https://evil.example',
      });
    });

    test('no key is ever written in full: ?key=, X-Api-Key and Authorization are masked', async () => {
      const pub = stack.dev.publishableKey;
      const sec = stack.dev.secretKey;
      const bad = `not-a-key-${'z'.repeat(30)}`;
      await logged(async () => {
        for (const [path, headers] of [
          [`/v1/geo?key=${pub}`, { Origin: 'http://localhost:5173' }],
          [`/v1/geo?key=${pub}`, { Origin: 'https://evil.example' }],
          ['/v1/geo', { 'X-Api-Key': pub, Origin: 'http://localhost:5173' }],
          ['/v1/lookup/8.8.8.8', { Authorization: `Bearer ${sec}` }],
          ['/v1/lookup/8.8.8.8', { Authorization: `Bearer ${bad}` }],
          ['/v1/lookup/8.8.8.8', { 'X-Api-Key': sec }],
        ] as const) {
          await (await stack.call('GET', path, { headers })).arrayBuffer();
        }
      });

      const written = lines.map((l) => JSON.stringify(l)).join('\n');
      expect(written).not.toContain(pub);
      expect(written).not.toContain(sec);
      expect(written).not.toContain(bad);
      expect(written).toContain(`key=ni_pub_…${pub.slice(-4)}`);
      expect(written).toContain(`"key":"Bearer ni_sec_…${sec.slice(-4)}"`);
      expect(written).toContain(`"key":"ni_sec_…${sec.slice(-4)}"`);
    });
  });
});
