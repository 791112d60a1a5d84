import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { generateApiKey } from '../../functions/lib/accounts/api-key.js';
import { AUTH_MESSAGES } from '../../functions/lib/accounts/auth-messages.js';
import { usageCounter } from '../../functions/lib/aws/services.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { serviceNow, startTestStack, type TestStack } from '../support/local-stack.js';

// Requests fetch() cannot send (two Authorization or Host headers, a garbage request line, headers
// over Node's 16 KB limit, an Expect header), written byte for byte on a socket. Every one is answered with its
// status and an {error, message} body, never a 500 and never Node's bare status line.

let stack: TestStack;
let host: string;
let port: number;

describe('hostile-headers', () => {
  beforeAll(async () => {
    stack = await startTestStack();
    const url = new URL(stack.url);
    host = url.hostname;
    port = Number(url.port);
  });

  afterAll(async () => {
    await stack?.close();
  });

  interface RawResponse {
    status: number;
    headers: Record<string, string>;
    body: unknown;
  }

  /**
   * Sends `request` as written and reads the response until the server closes the connection (the
   * socket is not half-closed first: Node's server drops a request whose client has ended).
   */
  function raw(request: string): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(port, host, () => socket.write(request));
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const split = text.indexOf('\r\n\r\n');
        if (split < 0) return reject(new Error(`no HTTP response: ${JSON.stringify(text)}`));
        const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
        }
        const body = text.slice(split + 4);
        resolve({
          status: Number(statusLine!.split(' ')[1]),
          headers,
          body: headers['content-type']?.startsWith('application/json') ? JSON.parse(body) : body,
        });
      });
    });
  }

  /** A GET written header line by header line; `Connection: close` so the server ends the exchange. */
  function get(
    path: string,
    headerLines: string[],
    hostLines = [`Host: ${host}:${port}`],
  ): Promise<RawResponse> {
    return raw(
      [`GET ${path} HTTP/1.1`, ...hostLines, ...headerLines, 'Connection: close', '', ''].join('\r\n'),
    );
  }

  /** The response is the API's error shape with this status and code. */
  function expectError(res: RawResponse, status: number, error: string) {
    expect({ status: res.status, body: res.body }).toEqual({
      status,
      body: { error, message: expect.any(String) },
    });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  }

  const monthUsage = async () =>
    (await usageCounter(stack.services).read(stack.dev.accountId, monthKey(serviceNow()))).monthCount;

  describe('one key per request (Authentication: more than one key is 401)', () => {
    test('one Authorization header is served (the raw client works)', async () => {
      const res = await get('/v1/lookup/8.8.8.8', [`Authorization: Bearer ${stack.dev.secretKey}`]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ip: '8.8.8.8' });
    });

    test('two Authorization headers are 401 invalid_api_key and nothing is billed', async () => {
      const before = await monthUsage();
      const res = await get('/v1/lookup/8.8.8.8', [
        `Authorization: Bearer ${stack.dev.secretKey}`,
        `Authorization: Bearer ${stack.dev.secretKey}`,
      ]);
      expectError(res, 401, 'invalid_api_key');
      expect(await monthUsage()).toBe(before);
    });

    test('authorization and Authorization, once each, are two Authorization headers', async () => {
      const res = await get('/v1/lookup/8.8.8.8', [
        `authorization: Bearer ${generateApiKey('secret')}`,
        `Authorization: Bearer ${stack.dev.secretKey}`,
      ]);
      expectError(res, 401, 'invalid_api_key');
    });

    test('a header or query parameter named __proto__ is a name like any other: the call is served', async () => {
      const res = await get('/v1/lookup/8.8.8.8?__proto__=1', [
        `Authorization: Bearer ${stack.dev.secretKey}`,
        '__proto__: x',
        'constructor: y',
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ ip: '8.8.8.8' });
    });

    test('two X-Api-Key headers are 401 invalid_api_key', async () => {
      const res = await get('/v1/geo', [
        'Origin: http://localhost:5173',
        `X-Api-Key: ${stack.dev.publishableKey}`,
        `x-api-key: ${stack.dev.publishableKey}`,
      ]);
      expectError(res, 401, 'invalid_api_key');
    });

    test('two Origin headers are 403 origin_not_allowed in either order, with no CORS header', async () => {
      for (const origins of [
        ['https://evil.example', 'http://localhost:5173'],
        ['http://localhost:5173', 'https://evil.example'],
      ]) {
        const res = await get('/v1/geo', [
          `X-Api-Key: ${stack.dev.publishableKey}`,
          ...origins.map((origin) => `Origin: ${origin}`),
        ]);
        expectError(res, 403, 'origin_not_allowed');
        expect(res.body).toEqual({
          error: 'origin_not_allowed',
          message: AUTH_MESSAGES.repeatedOrigin('Origin'),
        });
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    });

    test('?key= twice on GET /v1/geo is 401 invalid_api_key', async () => {
      const key = stack.dev.publishableKey;
      const res = await get(`/v1/geo?key=${key}&key=${key}`, ['Origin: http://localhost:5173']);
      expectError(res, 401, 'invalid_api_key');
    });
  });

  describe('the Host header: one, well formed (400 invalid_host)', () => {
    test.each([
      'host:abc',
      'host..',
      'host..com',
      '[::1',
      'a:b:c',
      'geo_api.shop.com',
      `localhost:${70_000}`,
    ])('Host: %s is 400 invalid_host, not the base address', async (value) => {
      const res = await get(
        '/v1/lookup/8.8.8.8',
        [`Authorization: Bearer ${stack.dev.secretKey}`],
        [`Host: ${value}`],
      );
      expectError(res, 400, 'invalid_host');
    });

    test('two Host headers are 400 invalid_host', async () => {
      const res = await get(
        '/v1/lookup/8.8.8.8',
        [`Authorization: Bearer ${stack.dev.secretKey}`],
        [`Host: ${host}:${port}`, 'Host: geo.other-shop.com'],
      );
      expectError(res, 400, 'invalid_host');
    });

    test('an HTTP/1.1 request without Host is 400 invalid_host', async () => {
      const res = await get('/v1/openapi.json', [], []);
      expectError(res, 400, 'invalid_host');
    });

    test('localhost, IPv4 and IPv6 literals with a port are served', async () => {
      for (const value of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
        const res = await get('/v1/openapi.json', [], [`Host: ${value}`]);
        expect({ value, status: res.status }).toEqual({ value, status: 200 });
      }
    });
  });

  describe('the path is routed as sent, as API Gateway routes it (fetch() would normalise it)', () => {
    const secret = () => [`Authorization: Bearer ${stack.dev.secretKey}`];

    test.each([
      '/v1\\lookup\\8.8.8.8',
      '/v1/lookup/../usage',
      '/v1/lookup/%2e%2e/usage',
      '/v1/lookup/%2E%2E/usage',
      '/v1/./usage',
    ])('%s is 404 not_found, not another route', async (path) => {
      expectError(await get(path, secret()), 404, 'not_found');
    });

    test('%2e%2e as the {ip} is that route refusing an invalid address', async () => {
      expectError(await get('/v1/lookup/%2e%2e', secret()), 400, 'invalid_ip');
    });

    test.each(['//v1/geo', '/v1/geo/'])('%s is 404 not_found (docs/api.md: GET /v1/geo)', async (path) => {
      const res = await get(path, [
        `X-Api-Key: ${stack.dev.publishableKey}`,
        'Origin: http://localhost:5173',
      ]);
      expectError(res, 404, 'not_found');
    });

    test('a path parameter is percent-decoded, and the query parsed, as before', async () => {
      const res = await get('/v1/lookup/2001%3Adb8%3A%3A1?fields=country%2Casn', secret());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ip: '2001:db8::1', found: false, country: null, asn: null });
    });

    test('a target that is no URL is 404 not_found, not a gateway error', async () => {
      const errorsBefore = stack.serverErrors().length;
      expectError(await get('//[', secret()), 404, 'not_found');
      expect(stack.serverErrors().slice(errorsBefore)).toEqual([]);
    });
  });

  describe('a contract header or query parameter sent twice is refused, not decided by the last one', () => {
    test('two If-Match lines on a travel save are 400 invalid_field and nothing is saved', async () => {
      const before = await stack.call('GET', '/v1/account/travel', { headers: stack.secret() });
      const body = JSON.stringify({ maxSpeedKmh: 900 });
      const res = await raw(
        [
          'PUT /v1/account/travel HTTP/1.1',
          `Host: ${host}:${port}`,
          `Authorization: Bearer ${stack.dev.secretKey}`,
          'Content-Type: application/json',
          'If-Match: "stale"',
          `If-Match: ${before.headers.get('etag')}`,
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Connection: close',
          '',
          body,
        ].join('\r\n'),
      );
      expectError(res, 400, 'invalid_field');
      expect(res.body).toMatchObject({ message: 'If-Match was sent more than once: send it once.' });
      const after = await stack.call('GET', '/v1/account/travel', { headers: stack.secret() });
      expect(await after.json()).toEqual(await before.json());
    });

    test('two Idempotency-Key lines on a list job are 400 invalid_idempotency_key and nothing is charged', async () => {
      const before = await monthUsage();
      const body = JSON.stringify({ emails: ['a@example.com'] });
      const res = await raw(
        [
          'POST /v1/email/jobs HTTP/1.1',
          `Host: ${host}:${port}`,
          `Authorization: Bearer ${stack.dev.secretKey}`,
          'Content-Type: application/json',
          'Idempotency-Key: first',
          'Idempotency-Key: second',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Connection: close',
          '',
          body,
        ].join('\r\n'),
      );
      expectError(res, 400, 'invalid_idempotency_key');
      expect(await monthUsage()).toBe(before);
    });

    test('a query parameter sent twice is 400 invalid_query and nothing is charged; fields are joined', async () => {
      const before = await monthUsage();
      const usage = await get('/v1/usage?days=90&days=1', [`Authorization: Bearer ${stack.dev.secretKey}`]);
      expectError(usage, 400, 'invalid_query');
      expect(usage.body).toMatchObject({ message: '?days was sent more than once: send it once.' });
      const lookup = await get('/v1/lookup/8.8.8.8?include=security&include=hostname', [
        `Authorization: Bearer ${stack.dev.secretKey}`,
      ]);
      expectError(lookup, 400, 'invalid_query');
      expect(await monthUsage()).toBe(before);
      // A list parameter given twice is one list, as documented.
      const fields = await get('/v1/lookup/8.8.8.8?fields=country&fields=asn', [
        `Authorization: Bearer ${stack.dev.secretKey}`,
      ]);
      expect(fields.status).toBe(200);
      expect(Object.keys(fields.body as object).sort()).toEqual(['asn', 'country', 'found', 'ip']);
    });
  });

  describe("what Node's HTTP parser refuses is answered in the API's shape", () => {
    test('headers over 16 KB are 431 headers_too_large, and the connection is closed', async () => {
      const res = await get('/v1/lookup/8.8.8.8', [
        `Authorization: Bearer ${stack.dev.secretKey}`,
        `X-Filler: ${'a'.repeat(17 * 1024)}`,
      ]);
      expectError(res, 431, 'headers_too_large');
      expect(res.headers.connection).toBe('close');
    });

    test('a garbage request line is 400 bad_request, and the connection is closed', async () => {
      const res = await raw('\x01\x02 not http at all\r\n\r\n');
      expectError(res, 400, 'bad_request');
      expect(res.headers.connection).toBe('close');
    });

    test('CONNECT (a tunnel request) is 400 bad_request, and the connection is closed', async () => {
      const res = await raw(`CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n`);
      expectError(res, 400, 'bad_request');
      expect(res.headers.connection).toBe('close');
    });

    test('a client that leaves in the middle of its body is logged as such, not as a gateway error', async () => {
      const errorsBefore = stack.serverErrors().length;
      const socket = connect(port, host);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        [
          'POST /v1/email/batch HTTP/1.1',
          `Host: ${host}:${port}`,
          `Authorization: Bearer ${stack.dev.secretKey}`,
          'Content-Type: application/json',
          'Content-Length: 1000',
          '',
          '{"emails": ["a@',
        ].join('\r\n'),
      );
      // The gateway has started reading the body once its first bytes are in; then the client goes.
      socket.destroy();
      const closed = () =>
        stack.serverLines().some((l) => l === 'POST /v1/email/batch closed before the request arrived');
      for (let turn = 0; turn < 10_000 && !closed(); turn++) await new Promise((r) => setImmediate(r));
      expect(closed()).toBe(true);
      expect(stack.serverErrors().slice(errorsBefore)).toEqual([]);
    });

    test('an Expect other than 100-continue is ignored: the route answers as without it', async () => {
      const body = JSON.stringify({ ips: ['8.8.8.8'] });
      const post = (key: string) =>
        raw(
          [
            'POST /v1/lookup HTTP/1.1',
            `Host: ${host}:${port}`,
            `Authorization: Bearer ${key}`,
            'Content-Type: application/json',
            `Content-Length: ${Buffer.byteLength(body)}`,
            'Expect: something-else',
            'Connection: close',
            '',
            body,
          ].join('\r\n'),
        );
      const served = await post(stack.dev.secretKey);
      expect(served.status).toBe(200);
      expect(served.body).toMatchObject({ results: [{ ip: '8.8.8.8' }] });
      expect(served.headers['x-request-id']).toEqual(expect.any(String));
      // A refusal is in the API's shape, not Node's bare 417.
      const refused = await post(generateApiKey('secret'));
      expectError(refused, 401, 'invalid_api_key');
      expect(refused.headers['x-request-id']).toEqual(expect.any(String));
    });

    test('a header value with a control character is 400 bad_request', async () => {
      const res = await get('/v1/lookup/8.8.8.8', ['X-Bad: a\x01b']);
      expectError(res, 400, 'bad_request');
    });
  });
});
