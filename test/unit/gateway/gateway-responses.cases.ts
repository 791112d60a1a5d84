import { describe, expect, test } from '@jest/globals';
import type { Account, AccountStore, KeyRecord } from '../../../functions/lib/accounts/account.js';
import { generateApiKey, hashApiKey } from '../../../functions/lib/accounts/api-key.js';
import { AUTH_MESSAGES } from '../../../functions/lib/accounts/auth-messages.js';
import { type AuthDecision, authenticate } from '../../../functions/lib/accounts/authenticate.js';
import type { HostnameRecord } from '../../../functions/lib/custom-hostnames/hostname.js';
import {
  denialContext,
  gatewayResponse,
  renderGatewayBody,
  renderGatewayHeaders,
} from '../../../functions/lib/gateway/gateway-responses.js';
import { EXPOSED_HEADERS } from '../../../functions/lib/http/cors.js';
import { toAuthorizerContext } from '../../../functions/lib/http/principal.js';
import { routeByName } from '../../../functions/routes.js';

// API Gateway's own answers as a browser gets them: the authorizer's context (what authenticate()
// decided, as the authorizer hands it over) through the gateway responses' header mappings.

/** On every gateway response besides its CORS headers. */
const COMMON = { 'Access-Control-Expose-Headers': EXPOSED_HEADERS, 'Cache-Control': 'no-store' };

const account: Account = {
  accountId: 'acct_1',
  plan: 'pro',
  email: null,
  createdAt: '2026-01-01T00:00:00Z',
  perMinute: 10,
  monthlyCap: 100,
  includesSecurity: true,
  customHostname: true,
};
const publishableKey = generateApiKey('publishable');
const secretKey = generateApiKey('secret');

const store: AccountStore = {
  getKeyByHash: async (hash) =>
    (
      [
        [publishableKey, 'publishable', ['https://app.example']],
        [secretKey, 'secret', []],
      ] as const
    )
      .filter(([key]) => hashApiKey(key) === hash)
      .map(
        ([key, type, origins]): KeyRecord => ({
          keyId: `key_${type}`,
          keyHash: hashApiKey(key),
          accountId: 'acct_1',
          type,
          origins: [...origins],
          revoked: false,
          createdAt: '2026-01-01T00:00:00Z',
        }),
      )[0],
  getAccount: async (id) => (id === 'acct_1' ? account : undefined),
};

/** Another account's active custom hostname (rule 7). */
const othersHostname: HostnameRecord = {
  hostname: 'api.other.example',
  accountId: 'acct_2',
  status: 'active',
  target: 'd1.cloudfront.net',
  token: 't',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
};

/** The authorizer's context for a decision, as functions/authorizer/handler.ts returns it. */
function contextOf(d: AuthDecision): Record<string, string> {
  if (d.ok) return toAuthorizerContext(d.principal);
  return denialContext({ errorCode: d.code, message: d.message, allowedOrigin: d.allowedOrigin });
}

async function geoCall(origin: string, host?: string) {
  return authenticate(
    {
      route: routeByName('geo'),
      headers: { 'x-api-key': [publishableKey], origin: [origin] },
      query: {},
      ...(host ? { host: { hostname: host, lookup: { getHostname: async () => othersHostname } } } : {}),
    },
    store,
  );
}

describe('gateway-responses', () => {
  describe('gateway responses in a browser (CORS)', () => {
    test('403 origin_not_allowed stays opaque: no Access-Control-Allow-Origin', async () => {
      const decision = await geoCall('https://evil.example');
      const authorizer = contextOf(decision);
      const denied = gatewayResponse('ACCESS_DENIED');
      expect(JSON.parse(renderGatewayBody(denied, authorizer))).toEqual({
        error: 'origin_not_allowed',
        message: expect.any(String),
      });
      const headers = renderGatewayHeaders(denied, {
        authorizer,
        requestHeaders: { Origin: 'https://evil.example' },
      });
      expect(headers['Access-Control-Allow-Origin']).toBeUndefined();
      expect(headers.Vary).toBe('Origin');
    });

    test('a refusal after the origin check passed (hostname_not_yours) is readable by that origin', async () => {
      const decision = await geoCall('https://app.example', 'api.other.example');
      expect(decision).toMatchObject({ ok: false, code: 'hostname_not_yours' });
      const headers = renderGatewayHeaders(gatewayResponse('ACCESS_DENIED'), {
        authorizer: contextOf(decision),
      });
      expect(headers).toEqual({
        'Access-Control-Allow-Origin': 'https://app.example',
        Vary: 'Origin',
        ...COMMON,
      });
    });

    test('a 429 from the usage plan, a 5xx and a timeout after an allowed origin are readable by it', async () => {
      const authorizer = contextOf(await geoCall('https://app.example'));
      for (const type of ['THROTTLED', 'DEFAULT_5XX', 'INTEGRATION_TIMEOUT', 'INTEGRATION_FAILURE']) {
        expect({ type, headers: renderGatewayHeaders(gatewayResponse(type), { authorizer }) }).toEqual({
          type,
          headers: { 'Access-Control-Allow-Origin': 'https://app.example', Vary: 'Origin', ...COMMON },
        });
      }
    });

    test('a secret key is never given CORS headers by a gateway response', async () => {
      const decision = await authenticate(
        { route: routeByName('lookup-ip'), headers: { authorization: [`Bearer ${secretKey}`] }, query: {} },
        store,
      );
      const authorizer = contextOf(decision);
      expect(authorizer.allowedOrigin).toBeUndefined();
      expect(
        renderGatewayHeaders(gatewayResponse('THROTTLED'), { authorizer })['Access-Control-Allow-Origin'],
      ).toBeUndefined();
    });

    test('a 401 echoes the request origin: the authorizer gives no context with a 401', () => {
      const headers = renderGatewayHeaders(gatewayResponse('UNAUTHORIZED'), {
        requestHeaders: { origin: 'https://app.example' },
      });
      expect(headers).toEqual({
        'Access-Control-Allow-Origin': 'https://app.example',
        Vary: 'Origin',
        ...COMMON,
      });
      expect(renderGatewayHeaders(gatewayResponse('UNAUTHORIZED'), {})).toEqual({
        Vary: 'Origin',
        ...COMMON,
      });
    });

    test("every gateway response carries API Gateway's request id as X-Request-Id", () => {
      for (const type of [
        'UNAUTHORIZED',
        'ACCESS_DENIED',
        'MISSING_AUTHENTICATION_TOKEN',
        'THROTTLED',
        'DEFAULT_5XX',
      ]) {
        expect(renderGatewayHeaders(gatewayResponse(type), { requestId: 'req-42' })['X-Request-Id']).toBe(
          'req-42',
        );
      }
    });

    test('the 401 API Gateway answers itself is the one for a request without any key', () => {
      expect(JSON.parse(renderGatewayBody(gatewayResponse('UNAUTHORIZED')))).toEqual({
        error: 'invalid_api_key',
        message: AUTH_MESSAGES.noKey,
      });
    });
  });

  describe('gateway response statuses', () => {
    test('a type we do not name keeps its own status under the default body', () => {
      expect(gatewayResponse('INVALID_API_KEY')).toMatchObject({ status: 403 });
      expect(gatewayResponse('INTEGRATION_FAILURE')).toMatchObject({ status: 504 });
      expect(gatewayResponse('AUTHORIZER_FAILURE')).toMatchObject({ status: 500 });
      expect(JSON.parse(renderGatewayBody(gatewayResponse('INVALID_API_KEY')))).toMatchObject({
        error: 'bad_request',
      });
    });

    test('the types we name keep the status we give them', () => {
      expect(gatewayResponse('MISSING_AUTHENTICATION_TOKEN').status).toBe(404);
      expect(gatewayResponse('UNAUTHORIZED').status).toBe(401);
      expect(gatewayResponse('THROTTLED').status).toBe(429);
    });

    test("the 403 body reads errorCode from the Deny context, not API Gateway's own $context.authorizer.error", () => {
      const body = renderGatewayBody(gatewayResponse('ACCESS_DENIED'), {
        error: 'the authorizer failed',
        ...denialContext({ errorCode: 'wrong_key_type', message: 'This route takes a secret key.' }),
      });
      expect(JSON.parse(body)).toEqual({
        error: 'wrong_key_type',
        message: 'This route takes a secret key.',
      });
    });
  });
});
