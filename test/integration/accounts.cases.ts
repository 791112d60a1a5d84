import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AUTH_MESSAGES } from '../../functions/lib/accounts/auth-messages.js';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { runAdmin } from '../../scripts/admin-cli.js';
import { PROJECT_ROOT } from '../../scripts/local/stack.js';
import {
  afterKeyCache,
  clock,
  freshMinute,
  serviceNow,
  startTestStack,
  type TestStack,
} from '../support/local-stack.js';

const run = promisify(execFile);
let stack: TestStack;

describe('accounts', () => {
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  async function newAccount(
    overrides: Parameters<ReturnType<typeof accountStore>['createAccount']>[1] = {},
    plan = 'pro',
  ) {
    const account = await accountStore(stack.services).createAccount(plan, {
      email: 'ops@customer.example',
      ...overrides,
    });
    const secret = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    const publishable = await accountStore(stack.services).createKey(account.accountId, 'publishable', [
      'https://shop.customer.example',
      'http://localhost:*',
    ]);
    return { account, secret, publishable, bearer: { Authorization: `Bearer ${secret.key}` } };
  }

  async function expectError(res: Response, status: number, code: string) {
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe(code);
    expect(typeof body.message).toBe('string');
  }

  const lookupBody = (n: number) => ({
    ips: Array.from({ length: n }, (_, i) => `8.8.${Math.floor(i / 250)}.${(i % 250) + 1}`),
  });

  /** How many of each status. */
  function tally(statuses: number[]): Record<number, number> {
    const out: Record<number, number> = {};
    for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
    return out;
  }

  describe('authentication (docs/api.md: Authentication; allowed origins, key types, 401 and 403)', () => {
    test('a missing key is 401', async () => {
      await expectError(
        await stack.call('DELETE', '/v1/risk/baseline', { body: { userId: 'u1' } }),
        401,
        'invalid_api_key',
      );
    });

    test('malformed keys are 401: empty Bearer, two keys, spaces, very long, unknown', async () => {
      const cases: Record<string, string>[] = [
        { Authorization: 'Bearer' },
        { Authorization: 'Bearer ' },
        { Authorization: `Basic ${stack.dev.secretKey}` },
        { Authorization: `Bearer ${stack.dev.secretKey} ${stack.dev.secretKey}` },
        { Authorization: `Bearer ${stack.dev.secretKey}`, 'X-Api-Key': stack.dev.publishableKey },
        { Authorization: `Bearer ni_sec_${'a'.repeat(4000)}` },
        { Authorization: `Bearer ni_sec_${'A'.repeat(32)}` },
      ];
      for (const headers of cases) {
        await expectError(
          await stack.call('DELETE', '/v1/risk/baseline', { headers, body: { userId: 'u1' } }),
          401,
          'invalid_api_key',
        );
      }
    });

    test('a publishable key on a secret route is 403 and never a partial response', async () => {
      const res = await stack.call('POST', '/v1/lookup', {
        headers: stack.browser(),
        body: { ips: ['8.8.8.8'] },
      });
      await expectError(res, 403, 'wrong_key_type');
    });

    test('a secret key on a publishable route is 403', async () => {
      const res = await stack.call('POST', '/v1/email/validate', {
        headers: { ...stack.secret(), Origin: 'http://localhost:3000' },
        body: { email: 'a@b.example' },
      });
      await expectError(res, 403, 'wrong_key_type');
    });

    test('a secret key sent in X-Api-Key is refused: secret keys travel as Bearer', async () => {
      const res = await stack.call('DELETE', '/v1/risk/baseline', {
        headers: { 'X-Api-Key': stack.dev.secretKey },
        body: { userId: 'u' },
      });
      await expectError(res, 401, 'invalid_api_key');
    });

    test('a key in ?key= where only GET /v1/geo reads it is said to be; an empty ?key= is an empty key', async () => {
      const said = async (res: Response, message: string) => {
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ error: 'invalid_api_key', message });
      };
      await said(
        await stack.call('GET', `/v1/lookup/8.8.8.8?key=${stack.dev.secretKey}`),
        AUTH_MESSAGES.keyQueryNotRead,
      );
      await said(
        await stack.call('POST', `/v1/email/validate?key=${stack.dev.publishableKey}`, {
          headers: { Origin: 'http://localhost:3000' },
          body: { email: 'a@b.example' },
        }),
        AUTH_MESSAGES.keyQueryNotRead,
      );
      await said(
        await stack.call('GET', '/v1/geo?key=', { headers: stack.browser() }),
        AUTH_MESSAGES.emptyKey('the key query parameter'),
      );
    });

    test('an origin not on the list is 403 with no CORS header', async () => {
      for (const headers of [
        stack.browser('https://evil.example'),
        { 'X-Api-Key': stack.dev.publishableKey, Origin: 'null' },
        { 'X-Api-Key': stack.dev.publishableKey, Referer: 'https://evil.example/page' },
        { 'X-Api-Key': stack.dev.publishableKey },
      ]) {
        const res = await stack.call('GET', '/v1/geo', { headers });
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
        await expectError(res, 403, 'origin_not_allowed');
      }
      // An Origin sent but unreadable is told apart from none, without being quoted.
      // So is one no browser sends: credentials would make it another host's (evil.example), and a
      // path an allowed host's with more after it.
      for (const origin of [
        'http://localhost:99999',
        'http://localhost:4321@evil.example',
        'http://localhost:4321/x',
      ]) {
        const res = await stack.call('GET', '/v1/geo', { headers: stack.browser(origin) });
        expect([origin, await res.json()]).toEqual([
          origin,
          { error: 'origin_not_allowed', message: AUTH_MESSAGES.unreadableOrigin('Origin') },
        ]);
      }
      const withCredentials = await stack.call('GET', '/v1/geo', {
        headers: {
          'X-Api-Key': stack.dev.publishableKey,
          Referer: 'http://localhost:4321@evil.example/page',
        },
      });
      expect(await withCredentials.json()).toEqual({
        error: 'origin_not_allowed',
        message: AUTH_MESSAGES.unreadableOrigin('Referer'),
      });
    });

    test('an allowed origin gets CORS headers, also when the origin comes from Referer', async () => {
      const viaOrigin = await stack.call('GET', '/v1/geo', {
        headers: stack.browser('http://localhost:4321'),
      });
      expect(viaOrigin.headers.get('access-control-allow-origin')).toBe('http://localhost:4321');
      const viaReferer = await stack.call('GET', '/v1/geo', {
        headers: { 'X-Api-Key': stack.dev.publishableKey, Referer: 'http://127.0.0.1:8080/app/page?x=1' },
      });
      expect(viaReferer.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8080');
    });

    test('the ?key= fallback works on GET /v1/geo only', async () => {
      const geo = await stack.call('GET', `/v1/geo?key=${stack.dev.publishableKey}`, {
        headers: { Origin: 'http://localhost:1' },
      });
      expect(geo.status).not.toBe(401);
      const validate = await stack.call('POST', `/v1/email/validate?key=${stack.dev.publishableKey}`, {
        headers: { Origin: 'http://localhost:1' },
        body: { email: 'x@y.example' },
      });
      await expectError(validate, 401, 'invalid_api_key');
    });

    test('a CORS preflight is answered on browser routes and not on secret routes', async () => {
      const pre = await stack.call('OPTIONS', '/v1/email/validate', {
        headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST' },
      });
      expect(pre.status).toBe(204);
      // Every request header a browser route reads, gzip bodies included: a header left out fails the preflight.
      expect(pre.headers.get('access-control-allow-headers')).toBe(
        'Content-Type, Content-Encoding, X-Api-Key',
      );
      // As API Gateway's mock answers it: any origin, the real call is the one checked.
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      const secret = await stack.call('OPTIONS', '/v1/lookup', {
        headers: { Origin: 'http://localhost:3000' },
      });
      await expectError(secret, 405, 'method_not_allowed');
      expect(secret.headers.get('access-control-allow-origin')).toBeNull();
    });

    test('secret routes send no CORS headers', async () => {
      const res = await stack.call('DELETE', '/v1/risk/baseline', {
        headers: { ...stack.secret(), Origin: 'https://shop.customer.example' },
        body: { userId: 'u1' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    test('a revoked key is 401 within the documented cache time', async () => {
      const { secret, bearer } = await newAccount();
      expect(
        (await stack.call('DELETE', '/v1/risk/baseline', { headers: bearer, body: { userId: 'u' } })).status,
      ).toBe(204);
      await accountStore(stack.services).revokeKey(secret.keyId);
      afterKeyCache(); // KEY_CACHE_SECONDS=1 in tests, 5 by default
      await expectError(
        await stack.call('DELETE', '/v1/risk/baseline', { headers: bearer, body: { userId: 'u' } }),
        401,
        'invalid_api_key',
      );
    });
  });

  describe('per-minute rate limit', () => {
    test('the call over the limit is 429 rate_limit_exceeded with Retry-After to the window end', async () => {
      const { bearer } = await newAccount({ perMinute: 3 });
      // 20.2 s into a fresh minute, and the service clock stands still there: the answer's
      // Retry-After does not depend on how long the calls take on a busy machine.
      const at = new Date(freshMinute().getTime() + 20_000);
      clock.freeze(at);
      try {
        for (let i = 0; i < 3; i++) {
          expect(
            (await stack.call('DELETE', '/v1/risk/baseline', { headers: bearer, body: { userId: 'u' } }))
              .status,
          ).toBe(204);
        }
        const res = await stack.call('DELETE', '/v1/risk/baseline', {
          headers: bearer,
          body: { userId: 'u' },
        });
        await expectError(res, 429, 'rate_limit_exceeded');
        expect(res.headers.get('retry-after')).toBe('40');
      } finally {
        clock.thaw();
      }
    });

    test('under 200 concurrent calls against a limit of 100, exactly 100 are admitted', async () => {
      freshMinute();
      const { bearer } = await newAccount({ perMinute: 100 });
      const statuses = await Promise.all(
        Array.from({ length: 200 }, () =>
          stack
            .call('DELETE', '/v1/risk/baseline', { headers: bearer, body: { userId: 'u' } })
            .then(async (r) => {
              await r.arrayBuffer();
              return r.status;
            }),
        ),
      );
      // Every status counted: a refusal other than 429 (a 504 from a starved machine) shows as itself.
      expect(tally(statuses)).toEqual({ 204: 100, 429: 100 });
      // 200 real HTTP calls: about 3 s alone, up to 15 s beside the other test files on 2 cores.
    }, 180_000);

    test('the limit is per account: another account is not affected', async () => {
      freshMinute();
      const a = await newAccount({ perMinute: 1 });
      const b = await newAccount({ perMinute: 1 });
      expect(
        (await stack.call('DELETE', '/v1/risk/baseline', { headers: a.bearer, body: { userId: 'u' } }))
          .status,
      ).toBe(204);
      expect(
        (await stack.call('DELETE', '/v1/risk/baseline', { headers: a.bearer, body: { userId: 'u' } }))
          .status,
      ).toBe(429);
      expect(
        (await stack.call('DELETE', '/v1/risk/baseline', { headers: b.bearer, body: { userId: 'u' } }))
          .status,
      ).toBe(204);
    });
  });

  describe('monthly cap and billing', () => {
    test('each IP in POST /v1/lookup is billed, duplicates twice, and counted as lookup usage', async () => {
      const { account, bearer } = await newAccount();
      const res = await stack.call('POST', '/v1/lookup', {
        headers: bearer,
        body: { ips: ['8.8.8.8', '8.8.8.8', '1.1.1.1'] },
      });
      expect(res.status).toBe(200);
      const usage = await usageCounter(stack.services).read(account.accountId, monthKey(serviceNow()));
      expect(usage.monthCount).toBe(3);
      expect(usage.meters.lookup).toBe(3);
    });

    test('a batch that would exceed the cap is rejected whole before any work', async () => {
      const { account, bearer } = await newAccount({ monthlyCap: 10 });
      expect((await stack.call('POST', '/v1/lookup', { headers: bearer, body: lookupBody(8) })).status).toBe(
        200,
      );
      await expectError(
        await stack.call('POST', '/v1/lookup', { headers: bearer, body: lookupBody(3) }),
        429,
        'monthly_limit_exceeded',
      );
      expect(
        (await usageCounter(stack.services).read(account.accountId, monthKey(serviceNow()))).monthCount,
      ).toBe(8);
      expect((await stack.call('POST', '/v1/lookup', { headers: bearer, body: lookupBody(2) })).status).toBe(
        200,
      );
      await expectError(
        await stack.call('GET', '/v1/lookup/8.8.8.8', { headers: bearer }),
        429,
        'monthly_limit_exceeded',
      );
    });

    test('unbilled calls still pass at the cap (polling, DELETE /v1/risk/baseline)', async () => {
      const { bearer } = await newAccount({ monthlyCap: 1 });
      expect((await stack.call('GET', '/v1/lookup/8.8.8.8', { headers: bearer })).status).toBe(200);
      await expectError(
        await stack.call('GET', '/v1/lookup/8.8.4.4', { headers: bearer }),
        429,
        'monthly_limit_exceeded',
      );
      expect(
        (await stack.call('DELETE', '/v1/risk/baseline', { headers: bearer, body: { userId: 'u' } })).status,
      ).toBe(204);
    });

    test('under 200 concurrent single lookups against a cap of 100, exactly 100 are admitted', async () => {
      const { account, bearer } = await newAccount({ monthlyCap: 100, perMinute: 10_000 });
      const errorsBefore = stack.serverErrors().length;
      const statuses = await Promise.all(
        Array.from({ length: 200 }, () =>
          stack.call('GET', '/v1/lookup/9.9.9.9', { headers: bearer }).then(async (r) => {
            await r.arrayBuffer();
            return r.status;
          }),
        ),
      );
      // A 5xx here would say what it was (the gateway's errors are kept whatever the log level).
      expect({ statuses: tally(statuses), errors: stack.serverErrors().slice(errorsBefore) }).toEqual({
        statuses: { 200: 100, 429: 100 },
        errors: [],
      });
      expect(
        (await usageCounter(stack.services).read(account.accountId, monthKey(serviceNow()))).monthCount,
      ).toBe(100);
      // 200 real HTTP calls: about 3 s alone, up to 15 s beside the other test files on 2 cores.
    }, 180_000);

    test('a request refused with 4xx before its work is not charged', async () => {
      const { account, bearer } = await newAccount();
      await expectError(
        await stack.call('POST', '/v1/lookup', { headers: bearer, body: { ips: ['8.8.8.8', 'nope'] } }),
        400,
        'invalid_ip',
      );
      expect(
        (await usageCounter(stack.services).read(account.accountId, monthKey(serviceNow()))).monthCount,
      ).toBe(0);
    });

    test('usage notices go out once each at 75%, 90% and 100% of the cap, even under concurrency', async () => {
      const { account, bearer } = await newAccount({ monthlyCap: 20, perMinute: 10_000 });
      const outbox = join(stack.dataDir, 'outbox.jsonl');
      await Promise.all(
        Array.from({ length: 25 }, () =>
          stack.call('GET', '/v1/lookup/8.8.8.8', { headers: bearer }).then((r) => r.arrayBuffer()),
        ),
      );
      const notices = (await readFile(outbox, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { accountId: string; percent: number; email: string })
        .filter((n) => n.accountId === account.accountId);
      expect(notices.map((n) => n.percent).sort((a, b) => a - b)).toEqual([75, 90, 100]);
      expect(notices.every((n) => n.email === 'ops@customer.example')).toBe(true);
    });
  });

  describe('admin CLI against the running local stack', () => {
    /** The CLI run in this process, as `npm run admin -- ... --json` runs it. */
    async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runAdmin([...args, '--data-dir', stack.dataDir, '--json'], {
        out: (text) => out.push(text),
        err: (text) => err.push(text),
        clock,
      });
      return { code, stdout: out.join('\n'), stderr: err.join('\n') };
    }

    test('account create, key create, usage show and key revoke work end to end', async () => {
      const { stdout: created } = await admin(
        'account',
        'create',
        '--plan',
        'starter',
        '--per-minute',
        '7',
        '--monthly-cap',
        '50',
        '--security',
        'true',
      );
      const { accountId } = JSON.parse(created) as { accountId: string };
      const account = await accountStore(stack.services).getAccount(accountId);
      expect(account).toMatchObject({
        plan: 'starter',
        perMinute: 7,
        monthlyCap: 50,
        includesSecurity: true,
      });

      const { stdout: keyOut } = await admin('key', 'create', '--account', accountId, '--type', 'secret');
      const { key, keyId } = JSON.parse(keyOut) as { key: string; keyId: string };
      expect(key).toMatch(/^ni_sec_[A-Za-z0-9_-]{32}$/);
      const bearer = { Authorization: `Bearer ${key}` };
      expect((await stack.call('GET', '/v1/lookup/8.8.8.8', { headers: bearer })).status).toBe(200);

      const { stdout: usageOut } = await admin('usage', 'show', '--account', accountId);
      expect(JSON.parse(usageOut)).toMatchObject({
        accountId,
        thisMonth: { used: 1, cap: 50, remaining: 49 },
        perKind: { lookup: 1 },
      });

      const { stdout: pubOut } = await admin(
        'key',
        'create',
        '--account',
        accountId,
        '--type',
        'publishable',
        '--origin',
        'https://a.example',
        '--origin',
        'http://localhost:*',
      );
      expect(JSON.parse(pubOut).key).toMatch(/^ni_pub_/);

      expect((await admin('key', 'revoke', '--key-id', keyId)).code).toBe(0);
      afterKeyCache();
      await expectError(
        await stack.call('GET', '/v1/lookup/8.8.8.8', { headers: bearer }),
        401,
        'invalid_api_key',
      );
    });

    test('bad admin input is refused with a clear message and exit code 2', async () => {
      for (const args of [
        ['account', 'create', '--plan', 'platinum'],
        ['account', 'create', '--plan', 'free', '--per-minute', '-3'],
        ['key', 'create', '--account', 'acct_nope', '--type', 'secret'],
        ['key', 'create', '--account', stack.dev.accountId, '--type', 'publishable', '--origin', 'not a url'],
        ['key', 'revoke', '--key-id', 'key_nope'],
      ]) {
        const { code, stderr } = await admin(...args);
        expect({ args, code }).toEqual({ args, code: 2 });
        expect(JSON.parse(stderr.trim().split('\n').pop()!)).toHaveProperty('error');
      }
    });

    test('`npm run admin` as its own process finds the running stack and sets the exit code', async () => {
      // One real process (the rest run in-process): the entry file and argv, the running stack found
      // through DATA_DIR/endpoints.json (the key is looked up in its table), the exit code and stderr.
      const refused = await run(
        process.execPath,
        [
          '--import',
          'tsx',
          'scripts/admin.ts',
          '--data-dir',
          stack.dataDir,
          '--json',
          'key',
          'revoke',
          '--key-id',
          'key_nope',
        ],
        {
          cwd: PROJECT_ROOT,
          env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
        },
      ).then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(refused?.code).toBe(2);
      expect(JSON.parse(refused!.stderr.trim())).toEqual({
        error: expect.stringContaining('key_nope'),
        hint: "npm run admin -- key list --account ID   shows an account's keys",
      });
    });
  });
});
