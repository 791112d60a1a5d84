import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MAX_LIVE_KEYS } from '../../functions/lib/accounts/live-keys.js';
import { accountStore, memberStore } from '../../functions/lib/aws/services.js';
import {
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  SIGN_IN_LINK_TTL_MS,
} from '../../functions/lib/dashboard/session-policy.js';
import { SIGN_IN_LIMITS, SIGN_IN_WINDOW_MS } from '../../functions/lib/dashboard/sign-in-limits.js';
import { linksFor, openSession, requestLink, signIn, tokenOf } from '../support/dashboard-session.js';
import { clock, startTestStack, type TestStack } from '../support/local-stack.js';

// The dashboard's sign-in and sessions over HTTP on the local stack: links by e-mail (the outbox),
// once and for 15 minutes; sessions by cookie with 12 h idle and 7 d absolute expiry; sign-out;
// CSRF refusal; no enumeration; limits per address and IP, per address and per IP (X-Forwarded-For
// stands in for the client IP); another account's things are 404.
// Time moves with the injected clock, never by sleeping.

let stack: TestStack;
const ORIGIN_SECRET = 'test-origin-secret-dashboard-sessions';
const ALICE = 'alice@shop.example';
let otherAccount: string;
let otherKeyId: string;

describe('dashboard-sessions', () => {
  beforeAll(async () => {
    process.env.ORIGIN_SECRET = ORIGIN_SECRET;
    stack = await startTestStack({ trustForwardedFor: true });
    await memberStore(stack.services).addMember(stack.dev.accountId, ALICE, new Date());
    const other = await accountStore(stack.services).createAccount('pro', { email: 'mallory@other.example' });
    otherAccount = other.accountId;
    otherKeyId = (await accountStore(stack.services).createKey(otherAccount, 'secret', [])).keyId;
    await memberStore(stack.services).addMember(otherAccount, 'mallory@other.example', new Date());
  });
  afterAll(async () => {
    await stack.close();
    delete process.env.ORIGIN_SECRET;
  });

  /**
   * Whether `cookie` opens a live session, as the page asks on its first load: GET
   * /v1/dashboard/session answers 200 either way, and a route that needs the session agrees.
   */
  async function signedInWith(cookie: string): Promise<boolean> {
    const probe = await stack.call('GET', '/v1/dashboard/session', { headers: { Cookie: cookie } });
    expect(probe.status).toBe(200);
    const { signedIn } = (await probe.json()) as { signedIn: boolean };
    const needing = await stack.call('GET', '/v1/dashboard/notices', { headers: { Cookie: cookie } });
    expect(needing.status).toBe(signedIn ? 200 : 401);
    return signedIn;
  }

  /**
   * A clock where the sign-in limits count nothing of the tests before (each asks for a few links):
   * a window past the next one, since the limit weighs the window before too.
   */
  function freshSignInWindow(): void {
    clock.set(
      new Date((Math.floor(clock.now().getTime() / SIGN_IN_WINDOW_MS) + 2) * SIGN_IN_WINDOW_MS + 1000),
    );
  }

  describe('sign-in links', () => {
    test('a member and a stranger get the same 202; only the member gets a link', async () => {
      freshSignInWindow();
      const member = await requestLink(stack, ' Alice@Shop.Example ');
      const stranger = await requestLink(stack, 'nobody@shop.example');
      expect(member.status).toBe(202);
      expect(stranger.status).toBe(202);
      expect(await member.json()).toEqual(await stranger.json());
      expect(await linksFor(stack, ALICE)).not.toHaveLength(0);
      // A link opens a session: the outbox is its owner's to read only.
      expect((await stat(join(stack.dataDir, 'outbox.jsonl'))).mode & 0o777).toBe(0o600);
      expect(await linksFor(stack, 'nobody@shop.example')).toHaveLength(0);
    });

    test('a link signs in once: the cookie is HttpOnly, SameSite=Strict, Path=/v1, not Secure on 127.0.0.1', async () => {
      freshSignInWindow();
      await requestLink(stack, ALICE);
      const token = tokenOf((await linksFor(stack, ALICE)).at(-1)!);
      const first = await openSession(stack, token);
      expect(first.status).toBe(201);
      const cookie = first.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/^netintel_session=[A-Za-z0-9_-]{43};/);
      expect(cookie).toContain('HttpOnly');
      expect(cookie).toContain('SameSite=Strict');
      expect(cookie).toContain('Path=/v1');
      expect(cookie).not.toContain('Secure');
      // The browser keeps it to the session's absolute end: the server ends it after 12 idle hours.
      const expires = Date.parse(/Expires=([^;]+)/.exec(cookie)?.[1] ?? '');
      const signedInAt =
        Date.parse(((await first.clone().json()) as { expiresAt: string }).expiresAt) - SESSION_IDLE_MS;
      expect(expires).toBe(Math.floor((signedInAt + SESSION_MAX_MS) / 1000) * 1000);
      expect(first.headers.get('cache-control')).toBe('no-store');
      const again = await openSession(stack, token);
      expect(again.status).toBe(401);
      expect(((await again.json()) as { error: string }).error).toBe('invalid_sign_in_link');
    });

    test('a link older than 15 minutes, or one never sent, is refused', async () => {
      freshSignInWindow();
      await requestLink(stack, ALICE);
      const token = tokenOf((await linksFor(stack, ALICE)).at(-1)!);
      clock.advance(SIGN_IN_LINK_TTL_MS + 1000);
      expect((await openSession(stack, token)).status).toBe(401);
      expect((await openSession(stack, 'A'.repeat(43))).status).toBe(401);
      const junk = await openSession(stack, '../../etc');
      expect(junk.status).toBe(401);
    });

    test(`more than ${SIGN_IN_LIMITS.emailFromIp} links for one address from one client IP in 15 minutes is 429 with Retry-After`, async () => {
      freshSignInWindow();
      for (let i = 0; i < SIGN_IN_LIMITS.emailFromIp; i++)
        expect((await requestLink(stack, 'carol@shop.example')).status).toBe(202);
      const refused = await requestLink(stack, 'carol@shop.example');
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: string }).error).toBe('too_many_sign_in_requests');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    });

    test("a stranger asking for a member's address from another network does not lock the member out", async () => {
      freshSignInWindow();
      const stranger = { 'X-Forwarded-For': '198.51.100.7' };
      for (let i = 0; i < SIGN_IN_LIMITS.emailFromIp; i++)
        expect((await requestLink(stack, ALICE, stranger)).status).toBe(202);
      const refused = await requestLink(stack, ALICE, stranger);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { message: string }).message).toContain('this address');
      // Keeping it up, one request every 3 minutes, still locks out only the stranger's network.
      clock.advance(3 * 60_000);
      expect((await requestLink(stack, ALICE, stranger)).status).toBe(429);
      // The member, from their own network, still gets a link.
      const before = (await linksFor(stack, ALICE)).length;
      const own = await requestLink(stack, ALICE, { 'X-Forwarded-For': '203.0.113.40' });
      expect(own.status).toBe(202);
      expect(await linksFor(stack, ALICE)).toHaveLength(before + 1);
    });

    test('an IPv6 client is its /64: a new address in it for each request shares one limit', async () => {
      freshSignInWindow();
      for (let i = 0; i < SIGN_IN_LIMITS.emailFromIp; i++) {
        const from = { 'X-Forwarded-For': `2001:db8:40:1:${(i + 1).toString(16)}::7` };
        expect((await requestLink(stack, 'hana@shop.example', from)).status).toBe(202);
      }
      const refused = await requestLink(stack, 'hana@shop.example', {
        'X-Forwarded-For': '2001:db8:40:1:ffff::1',
      });
      expect(refused.status).toBe(429);
      // The next /64 is another client.
      const next = await requestLink(stack, 'hana@shop.example', { 'X-Forwarded-For': '2001:db8:40:2::7' });
      expect(next.status).toBe(202);
    });

    test("behind our CloudFront the limits count the visitor's address (X-Viewer-Address), believed only with the origin secret", async () => {
      freshSignInWindow();
      // Every request reaches API Gateway from the same CloudFront server.
      const edge = (viewer: string, secret = ORIGIN_SECRET) => ({
        'X-Forwarded-For': '192.0.2.10',
        'X-Origin-Verify': secret,
        'X-Viewer-Address': viewer,
      });
      for (let i = 0; i < SIGN_IN_LIMITS.emailFromIp; i++)
        expect((await requestLink(stack, 'gina@shop.example', edge('198.51.100.50'))).status).toBe(202);
      expect((await requestLink(stack, 'gina@shop.example', edge('198.51.100.50'))).status).toBe(429);
      // Another visitor through the same CloudFront server is another client.
      expect((await requestLink(stack, 'gina@shop.example', edge('2001:db8::60'))).status).toBe(202);
      // Without the secret the header is the caller's own words: the connecting address counts.
      const direct = (viewer: string) => ({ 'X-Forwarded-For': '198.51.100.51', 'X-Viewer-Address': viewer });
      for (let i = 0; i < SIGN_IN_LIMITS.emailFromIp; i++)
        expect((await requestLink(stack, 'gina@shop.example', direct(`203.0.113.${70 + i}`))).status).toBe(
          202,
        );
      expect((await requestLink(stack, 'gina@shop.example', direct('203.0.113.99'))).status).toBe(429);
      const wrong = edge('203.0.113.98', 'not-the-secret');
      wrong['X-Forwarded-For'] = '198.51.100.51';
      expect((await requestLink(stack, 'gina@shop.example', wrong)).status).toBe(429);
    });

    test(`more than ${SIGN_IN_LIMITS.email} links for one address from all client IPs in 15 minutes is 429`, async () => {
      freshSignInWindow();
      const networks = Math.ceil(SIGN_IN_LIMITS.email / SIGN_IN_LIMITS.emailFromIp);
      let asked = 0;
      for (let n = 0; n < networks; n++)
        for (let i = 0; i < SIGN_IN_LIMITS.emailFromIp && asked < SIGN_IN_LIMITS.email; i++, asked++) {
          const res = await requestLink(stack, 'erin@shop.example', {
            'X-Forwarded-For': `198.51.100.${20 + n}`,
          });
          expect(res.status).toBe(202);
        }
      const refused = await requestLink(stack, 'erin@shop.example', { 'X-Forwarded-For': '198.51.100.99' });
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { message: string }).message).toContain('this address');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another address from that network is not refused: the limit is the address's.
      expect(
        (await requestLink(stack, 'frank@shop.example', { 'X-Forwarded-For': '198.51.100.99' })).status,
      ).toBe(202);
    });

    test('a window edge is no door to a second burst: the last 15 minutes count', async () => {
      freshSignInWindow();
      // The limit's requests in the last seconds of a window…
      const edge = (Math.floor(clock.now().getTime() / SIGN_IN_WINDOW_MS) + 1) * SIGN_IN_WINDOW_MS;
      clock.set(new Date(edge - 5_000));
      for (let i = 0; i < SIGN_IN_LIMITS.emailFromIp; i++)
        expect((await requestLink(stack, 'dora@shop.example')).status).toBe(202);
      // …still count just after its edge (fixed windows admitted as many again here).
      clock.set(new Date(edge + 1_000));
      const refused = await requestLink(stack, 'dora@shop.example');
      expect(refused.status).toBe(429);
      // One more fits once a fifth of them has slid out of the last 15 minutes.
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBe(Math.ceil((SIGN_IN_WINDOW_MS / SIGN_IN_LIMITS.emailFromIp - 1_000) / 1000));
      clock.advance(wait * 1000);
      expect((await requestLink(stack, 'dora@shop.example')).status).toBe(202);
      expect((await requestLink(stack, 'dora@shop.example')).status).toBe(429);
    });

    test(`more than ${SIGN_IN_LIMITS.ip} links from one client IP in 15 minutes is 429, whatever the addresses`, async () => {
      freshSignInWindow();
      for (let i = 0; i < SIGN_IN_LIMITS.ip; i++)
        expect((await requestLink(stack, `p${i}@shop.example`)).status).toBe(202);
      expect((await requestLink(stack, 'p-last@shop.example')).status).toBe(429);
    });

    test('bad bodies are 400 {error, message}, never a 500', async () => {
      freshSignInWindow();
      for (const body of [
        {},
        { email: 'not an address' },
        { email: 42 },
        { email: 'a@b.example', extra: 1 },
      ]) {
        const res = await stack.call('POST', '/v1/dashboard/sign-in', { body });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      }
      const notJson = await stack.call('POST', '/v1/dashboard/sessions', {
        body: '{"token":',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(notJson.status).toBe(400);
    });
  });

  describe('sessions', () => {
    test('the session answers with its person, account and CSRF token; without one it answers signedIn false', async () => {
      freshSignInWindow();
      const alice = await signIn(stack, ALICE);
      const res = await stack.call('GET', '/v1/dashboard/session', { headers: { Cookie: alice.cookie } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        signedIn: true,
        email: ALICE,
        accountId: stack.dev.accountId,
        csrfToken: alice.csrfToken,
      });
      // Signed out is an answer (the page's first-load probe), not a 401 a browser logs as an error.
      const noSession: Record<string, string>[] = [{}, { Cookie: `netintel_session=${'x'.repeat(43)}` }];
      for (const headers of noSession) {
        const none = await stack.call('GET', '/v1/dashboard/session', { headers });
        expect(none.status).toBe(200);
        expect(none.headers.get('cache-control')).toBe('no-store');
        expect(await none.json()).toEqual({ signedIn: false });
      }
    });

    test('a route that needs the session still refuses a call without one: 401 session_required', async () => {
      for (const [method, path] of [
        ['GET', '/v1/dashboard/overview'],
        ['GET', '/v1/dashboard/keys'],
        ['DELETE', '/v1/dashboard/session'],
      ] as const) {
        const res = await stack.call(method, path);
        expect(res.status).toBe(401);
        expect(((await res.json()) as { error: string }).error).toBe('session_required');
      }
    });

    test("a change without the session's X-CSRF-Token is 403 csrf_token_invalid; with it, it is made", async () => {
      freshSignInWindow();
      const alice = await signIn(stack, ALICE);
      const body = { type: 'secret', label: 'backend' };
      const attempts: Record<string, string>[] = [
        { Cookie: alice.cookie },
        { Cookie: alice.cookie, 'X-CSRF-Token': 'x'.repeat(43) },
      ];
      for (const headers of attempts) {
        const refused = await stack.call('POST', '/v1/dashboard/keys', { headers, body });
        expect(refused.status).toBe(403);
        expect(((await refused.json()) as { error: string }).error).toBe('csrf_token_invalid');
      }
      const made = await stack.call('POST', '/v1/dashboard/keys', { headers: alice.change(), body });
      expect(made.status).toBe(201);
      const key = (await made.json()) as { key: string; last4: string; label: string };
      expect(key.key.endsWith(key.last4)).toBe(true);
      expect(key.label).toBe('backend');
    });

    test(`creates at the same moment never make more than ${MAX_LIVE_KEYS} live keys; a revoke makes room for one`, async () => {
      freshSignInWindow();
      const account = await accountStore(stack.services).createAccount('pro', {
        email: 'carol@many.example',
      });
      await memberStore(stack.services).addMember(account.accountId, 'carol@many.example', clock.now());
      const carol = await signIn(stack, 'carol@many.example');
      const create = () =>
        stack.call('POST', '/v1/dashboard/keys', { headers: carol.change(), body: { type: 'secret' } });
      const answers = await Promise.all(Array.from({ length: MAX_LIVE_KEYS + 10 }, create));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_LIVE_KEYS);
      expect(statuses.filter((s) => s === 409)).toHaveLength(10);
      const refused = (await answers.find((a) => a.status === 409)!.json()) as {
        error: string;
        message: string;
      };
      expect(refused).toEqual({
        error: 'too_many_keys',
        message: 'An account has at most 50 live keys: revoke one first.',
      });
      const listed = async () => {
        const res = await stack.call('GET', '/v1/dashboard/keys', { headers: { Cookie: carol.cookie } });
        const { keys } = (await res.json()) as { keys: { keyId: string; revoked: boolean }[] };
        return keys.filter((k) => !k.revoked);
      };
      const live = await listed();
      expect(live).toHaveLength(MAX_LIVE_KEYS);
      expect((await create()).status).toBe(409);
      const revoked = await stack.call('DELETE', `/v1/dashboard/keys/${live[0]!.keyId}`, {
        headers: carol.change(),
      });
      expect(revoked.status).toBe(204);
      expect((await create()).status).toBe(201);
      expect((await create()).status).toBe(409);
      expect(await listed()).toHaveLength(MAX_LIVE_KEYS);
    });

    test('a session ends 12 hours after its last use', async () => {
      freshSignInWindow();
      const alice = await signIn(stack, ALICE);
      clock.advance(SESSION_IDLE_MS - 60_000);
      expect(await signedInWith(alice.cookie)).toBe(true);
      clock.advance(SESSION_IDLE_MS - 60_000);
      expect(await signedInWith(alice.cookie)).toBe(true);
      clock.advance(SESSION_IDLE_MS + 1000);
      expect(await signedInWith(alice.cookie)).toBe(false);
    });

    test('a session in daily use still ends 7 days after sign-in', async () => {
      freshSignInWindow();
      const alice = await signIn(stack, ALICE);
      const started = clock.now().getTime();
      while (clock.now().getTime() + 11 * 3600_000 < started + SESSION_MAX_MS) {
        clock.advance(11 * 3600_000);
        expect(await signedInWith(alice.cookie)).toBe(true);
      }
      clock.set(new Date(started + SESSION_MAX_MS + 1000));
      expect(await signedInWith(alice.cookie)).toBe(false);
    });

    test('sign-out ends the session on the server: the old cookie is refused', async () => {
      freshSignInWindow();
      const alice = await signIn(stack, ALICE);
      const out = await stack.call('DELETE', '/v1/dashboard/session', { headers: alice.change() });
      expect(out.status).toBe(204);
      expect(out.headers.get('set-cookie')).toContain('Expires=Thu, 01 Jan 1970');
      expect(await signedInWith(alice.cookie)).toBe(false);
    });

    test('a link opened in a browser already signed in ends the session it replaces', async () => {
      freshSignInWindow();
      const alice = await signIn(stack, ALICE);
      await requestLink(stack, 'mallory@other.example');
      const token = tokenOf((await linksFor(stack, 'mallory@other.example')).at(-1)!);
      const opened = await stack.call('POST', '/v1/dashboard/sessions', {
        body: { token },
        headers: { Cookie: alice.cookie },
      });
      expect(opened.status).toBe(201);
      expect(await signedInWith(alice.cookie)).toBe(false);
      expect(await signedInWith((opened.headers.get('set-cookie') ?? '').split(';')[0]!)).toBe(true);
    });

    test('removing a member ends their sessions and links at once; adding them back revives neither', async () => {
      freshSignInWindow();
      const members = memberStore(stack.services);
      await members.addMember(stack.dev.accountId, 'bob@shop.example', clock.now());
      const bob = await signIn(stack, 'bob@shop.example');
      // A link asked for before the removal, not yet opened.
      expect((await requestLink(stack, 'bob@shop.example')).status).toBe(202);
      const token = tokenOf((await linksFor(stack, 'bob@shop.example')).at(-1) ?? '');
      await members.removeMember(stack.dev.accountId, 'bob@shop.example');
      expect(await signedInWith(bob.cookie)).toBe(false);
      clock.advance(1000);
      await members.addMember(stack.dev.accountId, 'bob@shop.example', clock.now());
      expect(await signedInWith(bob.cookie)).toBe(false);
      expect((await openSession(stack, token)).status).toBe(401);
      // A new link signs the member in again.
      expect(await signedInWith((await signIn(stack, 'bob@shop.example')).cookie)).toBe(true);
    });
  });

  describe('plans', () => {
    test('a plan without custom hostnames: the list says so and adding one is 403 not_in_plan', async () => {
      freshSignInWindow();
      const starter = await accountStore(stack.services).createAccount('starter', {
        email: 'sam@small.example',
      });
      await memberStore(stack.services).addMember(starter.accountId, 'sam@small.example', new Date());
      const sam = await signIn(stack, 'sam@small.example');
      const listed = await stack.call('GET', '/v1/dashboard/hostnames', { headers: { Cookie: sam.cookie } });
      expect(await listed.json()).toEqual({ eligible: false, hostnames: [] });
      const added = await stack.call('POST', '/v1/dashboard/hostnames', {
        headers: sam.change(),
        body: { hostname: 'api.small-shop.com' },
      });
      expect(added.status).toBe(403);
      expect(((await added.json()) as { error: string }).error).toBe('not_in_plan');
    });
  });

  describe('tenant isolation', () => {
    test("another account's key and hostname are 404, and nothing of theirs changes", async () => {
      freshSignInWindow();
      const alice = await signIn(stack, ALICE);
      const revoke = await stack.call('DELETE', `/v1/dashboard/keys/${otherKeyId}`, {
        headers: alice.change(),
      });
      expect(revoke.status).toBe(404);
      const edit = await stack.call('PUT', `/v1/dashboard/keys/${otherKeyId}`, {
        headers: alice.change(),
        body: { origins: ['https://evil.example'] },
      });
      expect(edit.status).toBe(404);
      const keys = [];
      for await (const key of accountStore(stack.services).keysOf(otherAccount)) keys.push(key);
      expect(keys.every((k) => !k.revoked)).toBe(true);
      const listed = (await (
        await stack.call('GET', '/v1/dashboard/keys', { headers: { Cookie: alice.cookie } })
      ).json()) as {
        keys: { keyId: string }[];
      };
      expect(listed.keys.map((k) => k.keyId)).not.toContain(otherKeyId);
      const check = await stack.call('POST', '/v1/dashboard/hostnames/api.other.example/check', {
        headers: alice.change(),
      });
      expect(check.status).toBe(404);
    });

    test("the notices page shows what each e-mail said when it went out, not figures made from today's cap", async () => {
      freshSignInWindow(); // first: the notices and the page read the same month
      const BOB = 'bob@notices.example';
      const store = accountStore(stack.services);
      const account = await store.createAccount('pro', { email: BOB, monthlyCap: 50, perMinute: 10_000 });
      const secret = await store.createKey(account.accountId, 'secret', []);
      await memberStore(stack.services).addMember(account.accountId, BOB, new Date());
      const bearer = { Authorization: `Bearer ${secret.key}` };
      const lookup = (n: number, from: number) =>
        stack.call('POST', '/v1/lookup', {
          headers: bearer,
          body: { ips: Array.from({ length: n }, (_, i) => `8.8.4.${from + i}`) },
        });
      // 30, then a batch of 15 crossing 75% (38) and 90% (45) at once, then 5 more to 100%.
      for (const [n, from] of [
        [30, 1],
        [15, 31],
        [5, 46],
      ] as const) {
        expect((await lookup(n, from)).status).toBe(200);
      }
      await store.updateAccount(account.accountId, { monthlyCap: 100 });
      const bob = await signIn(stack, BOB);
      const res = await stack.call('GET', '/v1/dashboard/notices', { headers: { Cookie: bob.cookie } });
      expect(res.status).toBe(200);
      const { notices } = (await res.json()) as {
        notices: { percent: number; used: number | null; cap: number | null; sentAt: string }[];
      };
      expect(notices.map(({ percent, used, cap }) => ({ percent, used, cap }))).toEqual([
        { percent: 75, used: 45, cap: 50 },
        { percent: 90, used: 45, cap: 50 },
        { percent: 100, used: 50, cap: 50 },
      ]);
    });

    test('a session opens only its own account: the list-job routes with a session see its jobs only', async () => {
      freshSignInWindow();
      const alice = await signIn(stack, ALICE);
      const listed = await stack.call('GET', '/v1/email/jobs', { headers: { Cookie: alice.cookie } });
      expect(listed.status).toBe(200);
      const noCsrf = await stack.call('POST', '/v1/email/jobs', {
        headers: { Cookie: alice.cookie },
        body: { emails: ['a@gmail.com'] },
      });
      expect(noCsrf.status).toBe(403);
      expect(((await noCsrf.json()) as { error: string }).error).toBe('csrf_token_invalid');
      const made = await stack.call('POST', '/v1/email/jobs', {
        headers: alice.change(),
        body: { emails: ['a@gmail.com'] },
      });
      expect(made.status).toBe(202);
      // Made here, it says so: in its answer, when read back and in the list.
      const { id, source } = (await made.json()) as { id: string; source: string };
      expect(source).toBe('dashboard');
      const read = await stack.call('GET', `/v1/email/jobs/${id}`, { headers: { Cookie: alice.cookie } });
      expect(((await read.json()) as { source: string }).source).toBe('dashboard');
      const page = (await (
        await stack.call('GET', '/v1/email/jobs', { headers: { Cookie: alice.cookie } })
      ).json()) as { jobs: { id: string; source: string }[] };
      expect(page.jobs.find((job) => job.id === id)?.source).toBe('dashboard');
    });
  });
});
