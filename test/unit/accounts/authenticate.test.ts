import { readFile } from 'node:fs/promises';
import { describe, expect, test } from '@jest/globals';
import { ERROR_DOCS } from '../../../functions/api-reference/error-docs.js';
import type { Account, AccountStore, KeyRecord } from '../../../functions/lib/accounts/account.js';
import { generateApiKey, hashApiKey } from '../../../functions/lib/accounts/api-key.js';
import { AUTH_MESSAGES } from '../../../functions/lib/accounts/auth-messages.js';
import { authenticate } from '../../../functions/lib/accounts/authenticate.js';
import { cachingAccountStore } from '../../../functions/lib/accounts/cached-store.js';
import { headerValues, queryValues } from '../../../functions/lib/http/multi-value.js';
import { type KeyRoute, routeByName } from '../../../functions/routes.js';

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
const secretKey = generateApiKey('secret');
const publishableKey = generateApiKey('publishable');

function fixtureStore(): AccountStore & { keys: Map<string, KeyRecord> } {
  const keys = new Map<string, KeyRecord>();
  for (const [key, type, origins] of [
    [secretKey, 'secret', []],
    [publishableKey, 'publishable', ['https://app.example']],
  ] as const) {
    keys.set(hashApiKey(key), {
      keyId: `key_${type}`,
      keyHash: hashApiKey(key),
      accountId: 'acct_1',
      type,
      origins: [...origins],
      revoked: false,
      createdAt: '2026-01-01T00:00:00Z',
    });
  }
  return {
    keys,
    getKeyByHash: async (h) => keys.get(h),
    getAccount: async (id) => (id === 'acct_1' ? account : undefined),
  };
}

/** A request's headers or query as authenticate() takes them: every name sent once. */
const one = (values: Record<string, string>): Record<string, string[]> =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, [value]]));

const lookup: KeyRoute = routeByName('lookup-ip');
const geo: KeyRoute = routeByName('geo');

describe('authenticate (docs/api.md: Authentication; allowed origins, key types, 401 and 403)', () => {
  test('a secret key as Bearer on a secret route yields the account principal', async () => {
    const d = await authenticate(
      { route: lookup, headers: { authorization: [`Bearer ${secretKey}`] }, query: {} },
      fixtureStore(),
    );
    expect(d).toEqual({
      ok: true,
      principal: expect.objectContaining({
        accountId: 'acct_1',
        keyType: 'secret',
        perMinute: 10,
        monthlyCap: 100,
        allowedOrigin: '',
      }),
      // What the authorizer notes the day of use on (the dashboard's "last used").
      key: { keyHash: expect.any(String) },
    });
  });

  test('the Bearer scheme is case-insensitive', async () => {
    const d = await authenticate(
      { route: lookup, headers: { authorization: [`bearer ${secretKey}`] }, query: {} },
      fixtureStore(),
    );
    expect(d.ok).toBe(true);
  });

  test('a revoked key is 401', async () => {
    const store = fixtureStore();
    store.keys.get(hashApiKey(secretKey))!.revoked = true;
    const d = await authenticate(
      { route: lookup, headers: { authorization: [`Bearer ${secretKey}`] }, query: {} },
      store,
    );
    expect(d).toMatchObject({ ok: false, status: 401, code: 'invalid_api_key' });
  });

  test('the wrong key type is 403 whichever way round', async () => {
    const a = await authenticate(
      {
        route: lookup,
        headers: one({ 'x-api-key': publishableKey, origin: 'https://app.example' }),
        query: {},
      },
      fixtureStore(),
    );
    expect(a).toMatchObject({ ok: false, status: 403, code: 'wrong_key_type' });
    const b = await authenticate(
      { route: geo, headers: { authorization: [`Bearer ${secretKey}`] }, query: {} },
      fixtureStore(),
    );
    expect(b).toMatchObject({ ok: false, status: 403, code: 'wrong_key_type' });
  });

  test('Origin wins over Referer; Referer is used only without Origin', async () => {
    const store = fixtureStore();
    const viaReferer = await authenticate(
      {
        route: geo,
        headers: one({ 'x-api-key': publishableKey, referer: 'https://app.example/x' }),
        query: {},
      },
      store,
    );
    expect(viaReferer).toMatchObject({ ok: true, principal: { allowedOrigin: 'https://app.example' } });
    const nullOrigin = await authenticate(
      {
        route: geo,
        headers: one({ 'x-api-key': publishableKey, origin: 'null', referer: 'https://app.example/x' }),
        query: {},
      },
      store,
    );
    expect(nullOrigin).toMatchObject({ ok: false, status: 403, code: 'origin_not_allowed' });
  });

  test('the same key in header and query counts once; two different keys are refused', async () => {
    const same = await authenticate(
      {
        route: geo,
        headers: one({ 'x-api-key': publishableKey, origin: 'https://app.example' }),
        query: one({ key: publishableKey }),
      },
      fixtureStore(),
    );
    expect(same.ok).toBe(true);
    const two = await authenticate(
      {
        route: geo,
        headers: one({ 'x-api-key': publishableKey, origin: 'https://app.example' }),
        query: one({ key: generateApiKey('publishable') }),
      },
      fixtureStore(),
    );
    expect(two).toMatchObject({ ok: false, status: 401 });
  });

  test('keys that are not well formed never reach the store', async () => {
    let reads = 0;
    const store: AccountStore = {
      getKeyByHash: async () => {
        reads++;
        return undefined;
      },
      getAccount: async () => undefined,
    };
    for (const key of ['', 'x', `ni_sec_${'a'.repeat(5000)}`, `${secretKey}x`, 'ni_sec_ abc']) {
      const d = await authenticate(
        { route: lookup, headers: { authorization: [`Bearer ${key}`] }, query: {} },
        store,
      );
      expect(d).toMatchObject({ ok: false, status: 401 });
    }
    expect(reads).toBe(0);
  });
});

describe('one key per request (docs/api.md: Authentication; more than one key is 401)', () => {
  /** A store that counts key lookups: a refused duplicate must be refused before any. */
  function countingStore() {
    const store = fixtureStore();
    const counted = { reads: 0 };
    return {
      counted,
      store: {
        ...store,
        getKeyByHash: async (hash: string) => {
          counted.reads++;
          return store.getKeyByHash(hash);
        },
      } satisfies AccountStore,
    };
  }

  /** The authorizer's view of an API Gateway REST event: every value, names folded. */
  const fromEvent = (
    route: KeyRoute,
    event: {
      headers?: Record<string, string>;
      multiValueHeaders?: Record<string, string[]> | null;
      queryStringParameters?: Record<string, string>;
      multiValueQueryStringParameters?: Record<string, string[]> | null;
    },
  ) => ({ route, headers: headerValues(event), query: queryValues(event) });

  const otherSecret = generateApiKey('secret');
  const otherPublishable = generateApiKey('publishable');
  const origin = 'https://app.example';

  test.each([
    ['the same key twice', [`Bearer ${secretKey}`, `Bearer ${secretKey}`]],
    [
      'another key first, ours last (the one the single-value map keeps)',
      [`Bearer ${otherSecret}`, `Bearer ${secretKey}`],
    ],
  ])('two Authorization headers are 401 invalid_api_key: %s', async (_case, values) => {
    const { store, counted } = countingStore();
    const d = await authenticate(
      fromEvent(lookup, {
        headers: { Authorization: values.at(-1)! },
        multiValueHeaders: { Authorization: values },
      }),
      store,
    );
    expect(d).toEqual({
      ok: false,
      status: 401,
      code: 'invalid_api_key',
      message: 'Send exactly one API key; the Authorization header was sent 2 times.',
    });
    expect(counted.reads).toBe(0);
  });

  test('Authorization and authorization once each are two Authorization headers', async () => {
    const d = await authenticate(
      fromEvent(lookup, {
        headers: { Authorization: `Bearer ${otherSecret}`, authorization: `Bearer ${secretKey}` },
        multiValueHeaders: {
          Authorization: [`Bearer ${otherSecret}`],
          authorization: [`Bearer ${secretKey}`],
        },
      }),
      fixtureStore(),
    );
    expect(d).toMatchObject({ ok: false, status: 401, code: 'invalid_api_key' });
  });

  test('without multi-value maps, header names that differ only in case still count twice', async () => {
    const d = await authenticate(
      fromEvent(lookup, {
        headers: { Authorization: `Bearer ${secretKey}`, AUTHORIZATION: `Bearer ${secretKey}` },
        multiValueHeaders: null,
      }),
      fixtureStore(),
    );
    expect(d).toMatchObject({ ok: false, status: 401, code: 'invalid_api_key' });
  });

  test.each([
    ['X-Api-Key twice', { 'X-Api-Key': [publishableKey, publishableKey] }],
    ['X-Api-Key and x-api-key', { 'X-Api-Key': [otherPublishable], 'x-api-key': [publishableKey] }],
  ])('two X-Api-Key headers are 401 invalid_api_key: %s', async (_case, keyHeaders) => {
    const { store, counted } = countingStore();
    const d = await authenticate(
      fromEvent(geo, {
        headers: { Origin: origin, 'x-api-key': publishableKey },
        multiValueHeaders: { Origin: [origin], ...keyHeaders },
      }),
      store,
    );
    expect(d).toMatchObject({
      ok: false,
      status: 401,
      code: 'invalid_api_key',
      message: expect.stringContaining('the X-Api-Key header was sent 2 times'),
    });
    expect(counted.reads).toBe(0);
  });

  test('?key= twice on GET /v1/geo is 401 invalid_api_key, even with the same key', async () => {
    const { store, counted } = countingStore();
    const d = await authenticate(
      fromEvent(geo, {
        headers: { Origin: origin },
        multiValueHeaders: { Origin: [origin] },
        queryStringParameters: { key: publishableKey },
        multiValueQueryStringParameters: { key: [publishableKey, publishableKey] },
      }),
      store,
    );
    expect(d).toMatchObject({
      ok: false,
      status: 401,
      code: 'invalid_api_key',
      message: expect.stringContaining('the key query parameter was sent 2 times'),
    });
    expect(counted.reads).toBe(0);
  });

  test('one key in each channel, sent once, is still accepted', async () => {
    const d = await authenticate(
      fromEvent(geo, {
        headers: { Origin: origin, 'X-Api-Key': publishableKey },
        multiValueHeaders: { Origin: [origin], 'X-Api-Key': [publishableKey] },
        queryStringParameters: { key: publishableKey },
        multiValueQueryStringParameters: { key: [publishableKey] },
      }),
      fixtureStore(),
    );
    expect(d).toMatchObject({ ok: true, principal: { keyType: 'publishable' } });
  });
});

describe('key cache', () => {
  test('records are reused within the TTL and reloaded after it (revocation delay)', async () => {
    let t = 0;
    let reads = 0;
    const inner: AccountStore = {
      getKeyByHash: async () => {
        reads++;
        return undefined;
      },
      getAccount: async () => undefined,
    };
    const cached = cachingAccountStore(inner, { ttlMs: 5000, now: () => t });
    await cached.getKeyByHash('h');
    t = 4999;
    await cached.getKeyByHash('h');
    expect(reads).toBe(1);
    t = 5000;
    await cached.getKeyByHash('h');
    expect(reads).toBe(2);
  });

  test('a full cache drops the least recently used key, not the busy one', async () => {
    const reads: string[] = [];
    const inner: AccountStore = {
      getKeyByHash: async (hash) => {
        reads.push(hash);
        return undefined;
      },
      getAccount: async () => undefined,
    };
    const cached = cachingAccountStore(inner, { ttlMs: 5000, now: () => 0, maxEntries: 2 });
    await cached.getKeyByHash('busy');
    await cached.getKeyByHash('a');
    await cached.getKeyByHash('busy');
    await cached.getKeyByHash('b');
    await cached.getKeyByHash('busy');
    expect(reads).toEqual(['busy', 'a', 'b']);
  });
});

describe('each refusal says what to change (docs/api.md: Errors)', () => {
  const otherSecret = generateApiKey('secret');
  const cases: [string, KeyRoute, Record<string, string[]>, Record<string, string[]>, number, string][] = [
    ['no key', lookup, {}, {}, 401, AUTH_MESSAGES.noKey],
    ['a malformed key', lookup, { authorization: ['Bearer nope'] }, {}, 401, AUTH_MESSAGES.malformedKey],
    [
      'an Authorization header without Bearer',
      lookup,
      { authorization: [secretKey] },
      {},
      401,
      AUTH_MESSAGES.malformedAuthorization,
    ],
    [
      'an unknown key',
      lookup,
      { authorization: [`Bearer ${otherSecret}`] },
      {},
      401,
      AUTH_MESSAGES.unknownKey,
    ],
    [
      'a secret key outside Bearer',
      lookup,
      { 'x-api-key': [secretKey] },
      {},
      401,
      AUTH_MESSAGES.secretOutsideBearer,
    ],
    [
      'a publishable key as Bearer',
      geo,
      { authorization: [`Bearer ${publishableKey}`], origin: ['https://app.example'] },
      {},
      401,
      AUTH_MESSAGES.publishableAsBearer,
    ],
    [
      'two different keys',
      lookup,
      { authorization: [`Bearer ${secretKey}`], 'x-api-key': [otherSecret] },
      {},
      401,
      AUTH_MESSAGES.twoKeys,
    ],
    [
      'a publishable key on a secret route',
      lookup,
      one({ 'x-api-key': publishableKey }),
      {},
      403,
      AUTH_MESSAGES.wrongKeyType('secret', 'publishable'),
    ],
    ['no Origin or Referer', geo, one({ 'x-api-key': publishableKey }), {}, 403, AUTH_MESSAGES.noOrigin],
    [
      'an Origin that is no http(s) origin',
      geo,
      one({ 'x-api-key': publishableKey, origin: 'http://localhost:99999' }),
      {},
      403,
      AUTH_MESSAGES.unreadableOrigin('Origin'),
    ],
    [
      'an opaque Origin, even with a Referer',
      geo,
      one({ 'x-api-key': publishableKey, origin: 'null', referer: 'http://localhost:3000/' }),
      {},
      403,
      AUTH_MESSAGES.unreadableOrigin('Origin'),
    ],
    [
      'a Referer that is no URL',
      geo,
      one({ 'x-api-key': publishableKey, referer: 'http://localhost:3000.evil.example/' }),
      {},
      403,
      AUTH_MESSAGES.unreadableOrigin('Referer'),
    ],
    [
      'an origin not on the list',
      geo,
      one({ 'x-api-key': publishableKey, origin: 'https://evil.example' }),
      {},
      403,
      AUTH_MESSAGES.originNotAllowed('https://evil.example'),
    ],
    // Two Origins, in either order, or two Referers without an Origin: which is the page's?
    [
      'two Origin headers, the allowed one last',
      geo,
      { 'x-api-key': [publishableKey], origin: ['https://evil.example', 'https://app.example'] },
      {},
      403,
      AUTH_MESSAGES.repeatedOrigin('Origin'),
    ],
    [
      'two Origin headers, the allowed one first',
      geo,
      { 'x-api-key': [publishableKey], origin: ['https://app.example', 'https://evil.example'] },
      {},
      403,
      AUTH_MESSAGES.repeatedOrigin('Origin'),
    ],
    [
      'two Referer headers and no Origin',
      geo,
      { 'x-api-key': [publishableKey], referer: ['https://evil.example/', 'https://app.example/'] },
      {},
      403,
      AUTH_MESSAGES.repeatedOrigin('Referer'),
    ],
  ];

  test('a key sent in ?key= on a route that reads it only on GET /v1/geo is said to be, not "no key"', async () => {
    const email = routeByName('email-validate');
    for (const [route, key, headers] of [
      [email, publishableKey, { origin: ['https://app.example'] }],
      [lookup, secretKey, {}],
      [lookup, '', {}],
    ] as const) {
      const d = await authenticate({ route, headers, query: { key: [key] } }, fixtureStore());
      expect(d).toMatchObject({
        ok: false,
        status: 401,
        code: 'invalid_api_key',
        message: AUTH_MESSAGES.keyQueryNotRead,
      });
    }
    // With the key where the route reads it, the ?key= it does not read changes nothing.
    const d = await authenticate(
      { route: lookup, headers: one({ authorization: `Bearer ${secretKey}` }), query: { key: ['whatever'] } },
      fixtureStore(),
    );
    expect(d.ok).toBe(true);
  });

  test('an empty ?key= or X-Api-Key is refused as an empty key, alone or beside a key: never "two different keys"', async () => {
    const origin = ['https://app.example'];
    const cases: [Record<string, string[]>, Record<string, string[]>, string][] = [
      [
        { 'x-api-key': [publishableKey], origin },
        { key: [''] },
        AUTH_MESSAGES.emptyKey('the key query parameter'),
      ],
      [{ origin }, { key: [''] }, AUTH_MESSAGES.emptyKey('the key query parameter')],
      [
        { 'x-api-key': [''], origin },
        { key: [publishableKey] },
        AUTH_MESSAGES.emptyKey('the X-Api-Key header'),
      ],
      [{ 'x-api-key': ['  '], origin }, {}, AUTH_MESSAGES.emptyKey('the X-Api-Key header')],
    ];
    for (const [headers, query, message] of cases) {
      const d = await authenticate({ route: geo, headers, query }, fixtureStore());
      expect(d).toMatchObject({ ok: false, status: 401, code: 'invalid_api_key', message });
    }
  });

  test('one Origin decides, whatever Referers come with it', async () => {
    const d = await authenticate(
      {
        route: geo,
        headers: {
          'x-api-key': [publishableKey],
          origin: ['https://app.example'],
          referer: ['https://a.example/', 'https://b.example/'],
        },
        query: {},
      },
      fixtureStore(),
    );
    expect(d).toMatchObject({ ok: true, principal: { allowedOrigin: 'https://app.example' } });
  });

  test.each(cases)('%s', async (_name, route, headers, query, status, message) => {
    const d = await authenticate({ route, headers, query }, fixtureStore());
    expect(d).toMatchObject({ ok: false, status, message });
  });

  test('the 401 messages are distinct, and no message uses internal words', () => {
    const messages = cases.filter((c) => c[4] === 401).map((c) => c[5]);
    expect(new Set(messages).size).toBe(messages.length);
    for (const [, , , , , message] of cases) expect(message).not.toMatch(/spec|rule \d|issue/i);
  });

  test('a refused origin is named on the decision, for the logs', async () => {
    const d = await authenticate(
      {
        route: geo,
        headers: one({ 'x-api-key': publishableKey, origin: 'https://evil.example' }),
        query: {},
      },
      fixtureStore(),
    );
    expect(d).toMatchObject({ code: 'origin_not_allowed', refusedOrigin: 'https://evil.example' });
  });
});

describe('the refusals as documented (docs/api.md: Authentication; docs/errors.md)', () => {
  test('a key of the other type is 403 wrong_key_type wherever it was sent, and the docs say so', async () => {
    for (const [route, headers] of [
      [lookup, one({ authorization: `Bearer ${publishableKey}` })],
      [geo, one({ 'x-api-key': secretKey, origin: 'http://localhost:3000' })],
      [geo, one({ authorization: `Bearer ${secretKey}`, origin: 'https://app.example' })],
      [lookup, one({ 'x-api-key': publishableKey })],
    ] as const) {
      expect(await authenticate({ route, headers, query: {} }, fixtureStore())).toMatchObject({
        status: 403,
        code: 'wrong_key_type',
      });
    }
    // The 401s for a key in the wrong channel are its own type's route only.
    expect(ERROR_DOCS.invalid_api_key.when).toMatch(/secret key not sent as Bearer on a secret-key route/);
    expect(ERROR_DOCS.invalid_api_key.when).toMatch(
      /publishable key sent as Bearer on a publishable-key route/,
    );
    expect(ERROR_DOCS.wrong_key_type.when).toMatch(/wherever the key was sent/);
    const api = await readFile(new URL('../../../docs/api.md', import.meta.url), 'utf8');
    const why = api.slice(api.indexOf('- **Why a key was refused**'), api.indexOf('- **Secret keys**'));
    expect(why).toMatch(/a secret key outside `Bearer` on a secret-key route/);
    expect(why).toMatch(/publishable key sent as `Bearer` on a publishable-key route/);
    expect(why).toMatch(/a key of the other type is `403 wrong_key_type` wherever it travels/);
  });

  test("the reference's example messages of the key refusals are the ones the authorizer gives", async () => {
    const refused = async (route: KeyRoute, headers: Record<string, string>) =>
      authenticate({ route, headers: one(headers), query: {} }, fixtureStore());
    expect(await refused(geo, { 'x-api-key': publishableKey, origin: 'https://evil.example' })).toMatchObject(
      {
        code: 'origin_not_allowed',
        message: ERROR_DOCS.origin_not_allowed.message,
      },
    );
    expect(await refused(lookup, { 'x-api-key': publishableKey })).toMatchObject({
      code: 'wrong_key_type',
      message: ERROR_DOCS.wrong_key_type.message,
    });
    expect(await refused(lookup, {})).toMatchObject({
      code: 'invalid_api_key',
      message: ERROR_DOCS.invalid_api_key.message,
    });
  });
});
