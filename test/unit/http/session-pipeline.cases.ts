import { describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { LiveKeyLimitError } from '../../../functions/lib/accounts/errors.js';
import { defineHandler } from '../../../functions/lib/http/define-handler.js';
import { ValidationError } from '../../../functions/lib/http/errors.js';
import { routeByName } from '../../../functions/routes.js';
import { apiEvent, lambdaContext, NOW, SERVICES } from './middleware/support/pipeline.js';

// The pipeline of the routes called without a key (functions/lib/http/session-pipeline.ts), as
// defineHandler picks it by the route's auth kind: the session authorizer's decision is the caller,
// every answer is no-store, errors are the API's {error, message}.

const SESSION = {
  accountId: 'acct_1',
  email: 'ada@shop.example',
  csrfToken: 'csrf-1',
  sessionExpiresAt: '2026-11-21T10:15:20.000Z',
};

function event(authorizer: Record<string, string> | null, body: string | null = null): APIGatewayProxyEvent {
  return apiEvent({
    httpMethod: 'GET',
    path: '/v1/dashboard/keys',
    resource: '/v1/dashboard/keys',
    body,
    requestContext: {
      requestId: 'req-dash',
      identity: { sourceIp: '203.0.113.9' },
      authorizer,
    } as unknown as APIGatewayProxyEvent['requestContext'],
  });
}

const seen: unknown[] = [];
const keysList = defineHandler({
  route: routeByName('dashboard-keys-list'),
  input: () => undefined,
  run: async (_input, { session, now, services }) => {
    seen.push({ session, now, services });
    return { json: { accountId: session.accountId } };
  },
}).build(SERVICES);

const probe = defineHandler({
  route: routeByName('dashboard-session'),
  input: () => undefined,
  run: async (_input, { session }) => ({ json: { signedIn: session !== null } }),
}).build(SERVICES);

const failing = (error: unknown) =>
  defineHandler({
    route: routeByName('dashboard-sign-in'),
    input: () => {
      throw error;
    },
    run: async () => ({ json: {} }),
  }).build(SERVICES);

const json = (body: string) => JSON.parse(body) as Record<string, unknown>;

describe('the session pipeline (dashboard routes)', () => {
  test("a session route's run gets the authorizer's session, the instance's time and services; the answer is no-store", async () => {
    seen.length = 0;
    const res = await keysList(event(SESSION), lambdaContext());
    expect(res.statusCode).toBe(200);
    expect(json(res.body)).toEqual({ accountId: 'acct_1' });
    expect(res.headers).toMatchObject({ 'Cache-Control': 'no-store', 'X-Request-Id': 'req-dash' });
    expect(seen).toEqual([{ session: SESSION, now: NOW, services: SERVICES }]);
  });

  test("the authorizer's refusal is answered with its code and message, no-store; run never runs", async () => {
    seen.length = 0;
    const signedOut = await keysList(
      event({ errorCode: 'session_required', message: 'Sign in first.' }),
      lambdaContext(),
    );
    expect(signedOut.statusCode).toBe(401);
    expect(json(signedOut.body)).toEqual({ error: 'session_required', message: 'Sign in first.' });
    expect(signedOut.headers).toMatchObject({ 'Cache-Control': 'no-store' });
    const csrf = await keysList(
      event({ errorCode: 'csrf_token_invalid', message: 'Send the X-CSRF-Token.' }),
      lambdaContext(),
    );
    expect(csrf.statusCode).toBe(403);
    expect(json(csrf.body).error).toBe('csrf_token_invalid');
    expect(seen).toEqual([]);
  });

  test('a call that reached the function without any session context is 401 session_required', async () => {
    for (const authorizer of [null, {}, { accountId: 'acct_1' }] as (Record<string, string> | null)[]) {
      const res = await keysList(event(authorizer), lambdaContext());
      expect([res.statusCode, json(res.body).error]).toEqual([401, 'session_required']);
    }
  });

  test('a route that answers signed-out calls gets a null session instead of the refusal', async () => {
    const out = await probe(
      event({ errorCode: 'session_required', message: 'Sign in first.' }),
      lambdaContext(),
    );
    expect([out.statusCode, json(out.body)]).toEqual([200, { signedIn: false }]);
    const inside = await probe(event(SESSION), lambdaContext());
    expect(json(inside.body)).toEqual({ signedIn: true });
    // Any other refusal is still answered.
    const csrf = await probe(event({ errorCode: 'csrf_token_invalid', message: 'x' }), lambdaContext());
    expect(csrf.statusCode).toBe(403);
  });

  test("an open route's input refusals and the domain's errors are the API's answers; anything else is a bare 500", async () => {
    const refused = await failing(new ValidationError('invalid_field', 'email: not an address'))(
      event(null),
      lambdaContext(),
    );
    expect([refused.statusCode, json(refused.body)]).toEqual([
      400,
      { error: 'invalid_field', message: 'email: not an address' },
    ]);
    const domain = await failing(new LiveKeyLimitError(50))(event(null), lambdaContext());
    expect([domain.statusCode, json(domain.body).error]).toEqual([409, 'too_many_keys']);
    const crash = await failing(new Error('internal detail: table Accounts'))(event(null), lambdaContext());
    expect(crash.statusCode).toBe(500);
    expect(crash.body).not.toContain('internal detail');
    expect(crash.headers).toMatchObject({ 'Cache-Control': 'no-store' });
  });
});

describe('defineHandler picks the pipeline by the route’s auth kind', () => {
  test('a key route gets the key pipeline: a call without the key authorizer’s principal is 401', async () => {
    const handler = defineHandler({
      route: routeByName('usage'),
      input: () => undefined,
      run: async () => ({ json: {} }),
    }).build(SERVICES);
    const res = await handler(event(null), lambdaContext());
    expect(res.statusCode).toBe(401);
    expect(json(res.body).error).toBe('invalid_api_key');
    expect(res.headers?.['Cache-Control']).toBe('no-store');
  });
});
