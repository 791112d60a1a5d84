import { describe, expect, test } from '@jest/globals';
import type { KeyRouteName } from '../../../../functions/api-reference/route-contracts.js';
import { CONTRACTS } from '../../../../functions/contracts.js';
import { EXPOSED_HEADERS, preflightHeaders } from '../../../../functions/lib/http/cors.js';
import { cors } from '../../../../functions/lib/http/middleware/cors.js';
import { KEY_ROUTES } from '../../../../functions/routes.js';
import { apiEvent, PRINCIPAL, phase, requestOf } from './support/pipeline.js';

const browser = { ...PRINCIPAL, keyType: 'publishable' as const, allowedOrigin: 'https://shop.example' };
const json = () => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' });

describe("CORS for the key's allowed origin (none off the list, none on secret routes; docs/api.md: Authentication)", () => {
  test('a preflight allows every request header a browser route reads: gzip bodies included', () => {
    const allowed = (preflightHeaders('POST')['Access-Control-Allow-Headers'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase());
    const browserRoutes = KEY_ROUTES.filter((r) => r.auth === 'publishable');
    expect(browserRoutes.map((r) => r.name).sort()).toEqual(['email-validate', 'geo']);
    for (const route of browserRoutes) {
      const contract = CONTRACTS[route.name as KeyRouteName];
      // The key; for a body, its type and Content-Encoding: gzip (docs/api.md: Requests).
      const read = ['X-Api-Key', ...(contract.body ? ['Content-Type', 'Content-Encoding'] : [])];
      // And any header its contract names (Idempotency-Key and If-Match are secret routes').
      const named = contract.headers
        ? Object.keys((contract.headers._zod.def as { shape?: object }).shape ?? {})
        : [];
      for (const header of [...read, ...named])
        expect([route.name, allowed]).toEqual([route.name, expect.arrayContaining([header.toLowerCase()])]);
    }
  });

  test('an answer on a publishable route carries the allowed origin', async () => {
    const request = requestOf({ principal: browser });
    request.response = json();

    await phase(cors('publishable'), 'after', request);

    expect(request.response.headers).toMatchObject({
      'Access-Control-Allow-Origin': 'https://shop.example',
      'Access-Control-Expose-Headers': EXPOSED_HEADERS,
      Vary: 'Origin',
    });
  });

  test('an error for an allowed origin carries CORS too, and keeps its Retry-After', async () => {
    const request = requestOf({ principal: browser });
    request.response = { statusCode: 429, headers: { 'Retry-After': '40' }, body: '{}' };

    await phase(cors('publishable'), 'onError', request);

    expect(request.response.headers).toMatchObject({
      'Access-Control-Allow-Origin': 'https://shop.example',
      'Retry-After': '40',
    });
  });

  test('a secret route never sends CORS headers', async () => {
    const request = requestOf({ principal: { ...browser, keyType: 'secret' } });
    request.response = json();

    await phase(cors('secret'), 'after', request);

    expect(request.response.headers).toEqual({ 'Content-Type': 'application/json' });
  });

  test('a refused origin (none allowed) gets no CORS header', async () => {
    const request = requestOf({ principal: { ...browser, allowedOrigin: '' } });
    request.response = json();

    await phase(cors('publishable'), 'after', request);

    expect(request.response.headers).toEqual({ 'Content-Type': 'application/json' });
  });

  test("a key the authorizer refused (401, no principal) echoes the request's Origin, on any route", async () => {
    for (const keyType of ['publishable', 'secret'] as const) {
      const request = requestOf({}, apiEvent({ headers: { Origin: 'https://elsewhere.example' } }));
      request.response = { statusCode: 401, headers: { 'Content-Type': 'application/json' }, body: '{}' };

      await phase(cors(keyType), 'onError', request);

      expect(request.response.headers).toMatchObject({
        'Access-Control-Allow-Origin': 'https://elsewhere.example',
        'Access-Control-Expose-Headers': EXPOSED_HEADERS,
        Vary: 'Origin',
      });
    }
  });
});
