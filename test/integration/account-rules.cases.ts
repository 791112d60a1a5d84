import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { GEOFEED_MEDIA_TYPES } from '../../functions/lib/accounts/rules-schema.js';
import { dynamo } from '../../functions/lib/aws/dynamo-client.js';
import { tableName } from '../../functions/lib/aws/resources.js';
import { DynamoRulesStore } from '../../functions/lib/aws/rules-store.js';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { ACCOUNT_GEOFEED_MAX_BYTES } from '../../functions/lib/ip/account-geofeed.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { DEFAULT_TRAVEL_SETTINGS } from '../../functions/lib/risk/travel-settings.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { afterKeyCache, clock, startTestStack, type TestStack } from '../support/local-stack.js';

// The account's own rules (docs/rules.md) over HTTP on the local stack, with two accounts: A's
// geofeed, email rules and travel settings change A's answers and never B's; a refused geofeed
// changes nothing; managing rules is not billed.

const ORIGIN_SECRET = 'test-origin-secret-account-rules';
/** Google's resolver: Mountain View, US in the data. */
const GOOGLE = '8.8.8.8';
const LONDON = '212.58.244.20';
const NEW_YORK = '104.131.0.1';
const FEED = '# offices\n8.8.8.0/24,DE,DE-BE,Berlin,\n8.8.8.8/32,FR,,,\n';

let stack: TestStack;
let dns: DnsServer;
let a: Record<string, string>;
let b: Record<string, string>;
/** Publishable keys of A and B, from SITE (geo and email validation are browser routes). */
let aBrowser: Record<string, string>;
let bBrowser: Record<string, string>;
const SITE = 'https://shop.example.com';
let accountA: string;

async function newAccount(): Promise<{
  id: string;
  headers: Record<string, string>;
  browser: Record<string, string>;
}> {
  const store = accountStore(stack.services);
  const account = await store.createAccount('pro', {});
  const key = await store.createKey(account.accountId, 'secret', []);
  const pub = await store.createKey(account.accountId, 'publishable', [SITE]);
  return {
    id: account.accountId,
    headers: { Authorization: `Bearer ${key.key}` },
    browser: { 'X-Api-Key': pub.key, Origin: SITE },
  };
}

describe('account rules', () => {
  beforeAll(async () => {
    dns = await startDnsServer({
      answer: (name) => {
        if (name.endsWith('.example') || name === 'mozmail.com' || name === 'gmail.com')
          return [mx(`mx.${name}`)];
        return 'nxdomain';
      },
    });
    process.env.DNS_SERVERS = dns.address;
    process.env.DNS_BUDGET_MS = '2000';
    process.env.ORIGIN_SECRET = ORIGIN_SECRET;
    stack = await startTestStack();
    const first = await newAccount();
    accountA = first.id;
    a = first.headers;
    aBrowser = first.browser;
    const second = await newAccount();
    b = second.headers;
    bBrowser = second.browser;
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
    delete process.env.DNS_BUDGET_MS;
    delete process.env.ORIGIN_SECRET;
  });

  // biome-ignore lint/suspicious/noExplicitAny: the answers are read field by field, each checked
  const json = async (res: Response) => (await res.json()) as Record<string, any>;
  const putFeed = (text: string | Buffer, headers = a, type = 'text/csv') =>
    stack.call('PUT', '/v1/account/geofeed', { headers: { ...headers, 'Content-Type': type }, body: text });
  const lookup = async (ip: string, headers: Record<string, string>) =>
    json(await stack.call('GET', `/v1/lookup/${ip}`, { headers }));
  /** POST /v1/email/validate with A's or B's publishable key (from a browser on SITE). */
  const validate = async (email: string, headers: Record<string, string>) =>
    json(
      await stack.call('POST', '/v1/email/validate', {
        headers: headers === a ? aBrowser : headers === b ? bBrowser : headers,
        body: { email },
      }),
    );

  describe('defaults', () => {
    test('an account that set nothing: the defaults, no geofeed', async () => {
      expect(await json(await stack.call('GET', '/v1/account/travel', { headers: b }))).toEqual({
        maxSpeedKmh: 1000,
        minDistanceKm: 200,
        minSeconds: 0,
        updatedAt: null,
        updatedBy: null,
      });
      expect(await json(await stack.call('GET', '/v1/account/email-rules', { headers: b }))).toEqual({
        allow: { domains: [], mxHosts: [] },
        block: { domains: [], mxHosts: [], tlds: [] },
        relayAliases: 'accept',
        entries: 0,
        updatedAt: null,
        updatedBy: null,
      });
      const feed = await stack.call('GET', '/v1/account/geofeed', { headers: b });
      expect(feed.status).toBe(404);
      expect(await json(feed)).toMatchObject({ error: 'geofeed_not_found' });
    });

    test('a publishable key cannot read or change them', async () => {
      const res = await stack.call('GET', '/v1/account/travel', { headers: stack.browser() });
      expect(res.status).toBe(403);
      expect(await json(res)).toMatchObject({ error: 'wrong_key_type' });
    });
  });

  describe('private geofeed', () => {
    test("A's feed places A's lookups, most specific prefix first; B sees the data", async () => {
      const put = await putFeed(FEED);
      expect(put.status).toBe(200);
      expect(await json(put)).toMatchObject({
        prefixes: 2,
        bytes: Buffer.byteLength(FEED),
        updatedBy: expect.stringMatching(/^key:/),
      });
      afterKeyCache();

      // The /32 wins over the /24 for 8.8.8.8; another address of the /24 gets the /24's row.
      expect(await lookup(GOOGLE, a)).toMatchObject({
        country: 'FR',
        city: null,
        locationSource: 'account_geofeed',
      });
      expect(await lookup('8.8.8.4', a)).toMatchObject({
        country: 'DE',
        regionCode: 'DE-BE',
        city: 'Berlin',
        locationSource: 'account_geofeed',
      });
      expect(await lookup('8.8.8.4', b)).toMatchObject({ country: 'US', locationSource: 'database' });
      // Outside the feed: the data, for A too.
      expect(await lookup('1.1.1.1', a)).toMatchObject({ locationSource: 'database' });

      const batch = async (headers: Record<string, string>) =>
        (
          await json(
            await stack.call('POST', '/v1/lookup', { headers, body: { ips: ['8.8.8.4', '1.1.1.1'] } }),
          )
        ).results as Record<string, unknown>[];
      expect((await batch(a)).map((r) => [r.country, r.locationSource])).toEqual([
        ['DE', 'account_geofeed'],
        [expect.any(String), 'database'],
      ]);
      expect((await batch(b))[0]).toMatchObject({ country: 'US', locationSource: 'database' });

      // GET /v1/geo behind CloudFront for a visitor at 8.8.8.4: A's feed answers before the edge.
      const viaEdge = { 'X-Origin-Verify': ORIGIN_SECRET, 'CloudFront-Viewer-Address': '8.8.8.4:443' };
      const geoOf = async (headers: Record<string, string>) =>
        json(await stack.call('GET', '/v1/geo', { headers: { ...headers, ...viaEdge } }));
      expect(await geoOf(aBrowser)).toMatchObject({
        ip: '8.8.8.4',
        country: 'DE',
        locationSource: 'account_geofeed',
      });
      expect((await geoOf(bBrowser)).locationSource).not.toBe('account_geofeed');

      // The signup check's ip.
      const signup = async (headers: Record<string, string>) =>
        json(
          await stack.call('POST', '/v1/signup/check', {
            headers,
            body: { email: 'jane@shop.example', ip: '8.8.8.4' },
          }),
        );
      expect((await signup(a)).ip).toMatchObject({ country: 'DE', locationSource: 'account_geofeed' });
      expect((await signup(b)).ip).toMatchObject({ country: 'US', locationSource: 'database' });

      // GET answers the CSV as uploaded.
      const got = await stack.call('GET', '/v1/account/geofeed', { headers: a });
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(await got.text()).toBe(FEED);
    });

    test('a feed with a bad row is refused with its line number, and the feed in force stays', async () => {
      const bad = '8.8.4.0/24,DE,,Berlin,\n# fine so far\n10.0.0.0/8,DE,,,\n8.8.4.0/24,FR,,,\n';
      const res = await putFeed(bad);
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.error).toBe('invalid_geofeed');
      expect(body.lines.map((l: { line: number }) => l.line)).toEqual([3, 4]);
      expect(body.message).toContain('line 3');
      afterKeyCache();
      expect(await (await stack.call('GET', '/v1/account/geofeed', { headers: a })).text()).toBe(FEED);
      expect(await lookup('8.8.4.4', a)).toMatchObject({ locationSource: 'database' });
    });

    test('hostile bodies: too large, not CSV, empty', async () => {
      const big = await putFeed(`#${'x'.repeat(ACCOUNT_GEOFEED_MAX_BYTES)}\n`);
      expect(big.status).toBe(413);
      expect(await json(big)).toMatchObject({ error: 'body_too_large' });
      const notCsv = await putFeed('{"rows":[]}', a, 'application/json');
      expect(notCsv.status).toBe(415);
      // Every media type the API reference declares for the body is accepted.
      for (const type of GEOFEED_MEDIA_TYPES) {
        const res = await putFeed('# a comment only\n', a, `${type}; charset=utf-8`);
        expect([type, res.status, (await json(res)).error]).toEqual([type, 400, 'invalid_geofeed']);
      }
      const empty = await putFeed('');
      expect(empty.status).toBe(400);
      expect(await json(empty)).toMatchObject({ error: 'invalid_body' });
      const noRows = await putFeed('# only a comment\n');
      expect(noRows.status).toBe(400);
      expect(await json(noRows)).toMatchObject({ error: 'invalid_geofeed' });
    });

    test('Content-Encoding: gzip is read, limited once decompressed; other codings are 415', async () => {
      const put = (body: Buffer, encoding: string) =>
        stack.call('PUT', '/v1/account/geofeed', {
          headers: { ...a, 'Content-Type': 'text/csv', 'Content-Encoding': encoding },
          body,
        });
      const before = await (await stack.call('GET', '/v1/account/geofeed', { headers: a })).text();
      const br = await put(Buffer.from('8.8.8.0/24,CH,,,\n'), 'br');
      expect([br.status, (await json(br)).error]).toEqual([415, 'unsupported_media_type']);
      const notGzip = await put(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01]), 'gzip');
      expect([notGzip.status, (await json(notGzip)).error]).toEqual([400, 'invalid_body']);
      const bomb = await put(gzipSync(Buffer.alloc(ACCOUNT_GEOFEED_MAX_BYTES + 1, 0x23)), 'gzip');
      expect([bomb.status, (await json(bomb)).error]).toEqual([413, 'body_too_large']);
      expect(await (await stack.call('GET', '/v1/account/geofeed', { headers: a })).text()).toBe(before);
      const feed = '8.8.8.0/24,CH,,Zürich,\n';
      const gz = await put(gzipSync(Buffer.from(feed)), 'gzip');
      expect([gz.status, (await json(gz)).prefixes]).toEqual([200, 1]);
      // Stored as the CSV it was, not the gzip bytes.
      expect(await (await stack.call('GET', '/v1/account/geofeed', { headers: a })).text()).toBe(feed);
      afterKeyCache();
      expect(await lookup('8.8.8.8', a)).toMatchObject({ city: 'Zürich', locationSource: 'account_geofeed' });
      expect((await putFeed(before)).status).toBe(200);
      afterKeyCache();
    });

    test('a feed that is not UTF-8 is refused naming its line, and nothing is stored', async () => {
      const before = await stack.call('GET', '/v1/account/geofeed', { headers: a });
      const latin1 = Buffer.concat([
        Buffer.from('# ok\n8.8.8.0/24,FR,,'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(',\n'),
      ]);
      const res = await putFeed(latin1);
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({
        error: 'invalid_geofeed',
        lines: [{ line: 2, reason: 'the line is not UTF-8' }],
      });
      // Valid multi-byte characters before it do not shift the line; a cut-short one is refused.
      const cut = Buffer.concat([
        Buffer.from('# zoë\n# ✓\n8.8.8.0/24,FR,,'),
        Buffer.from([0xe2, 0x82]),
        Buffer.from('\n'),
      ]);
      expect(await json(await putFeed(cut))).toMatchObject({
        lines: [{ line: 3, reason: 'the line is not UTF-8' }],
      });
      // A Latin-1 export: every bad line is named at once, the bytes that are not UTF-8 with the rest,
      // in line order (a lone CR ends a line here as in the parse).
      const export1 = Buffer.from(
        '8.8.8.0/24,US,,,\n10.0.0.0/8,US,,,\r8.8.4.0/24,CH,,Z\xfcrich,\r\n8.8.5.0/24,DE,,M\xfcnchen,\n8.8.6.0/24,US,,"San Jose"x,\n',
        'latin1',
      );
      expect(await json(await putFeed(export1))).toMatchObject({
        error: 'invalid_geofeed',
        lines: [
          { line: 2, reason: 'prefix 10.0.0.0/8 overlaps a special-purpose range (private)' },
          { line: 3, reason: 'the line is not UTF-8' },
          { line: 4, reason: 'the line is not UTF-8' },
          { line: 5, reason: 'text after a closing quote' },
        ],
      });
      const after = await stack.call('GET', '/v1/account/geofeed', { headers: a });
      expect([after.status, await after.text()]).toEqual([before.status, await before.text()]);
    });

    test('DELETE removes it (204, also when there is none) and the data answers again', async () => {
      expect((await stack.call('DELETE', '/v1/account/geofeed', { headers: a })).status).toBe(204);
      expect((await stack.call('DELETE', '/v1/account/geofeed', { headers: a })).status).toBe(204);
      afterKeyCache();
      expect(await lookup('8.8.8.4', a)).toMatchObject({ country: 'US', locationSource: 'database' });
      expect((await stack.call('GET', '/v1/account/geofeed', { headers: a })).status).toBe(404);
    });
  });

  describe('email rules', () => {
    test("A's block and allow lists and relay policy change A's verdicts, never B's", async () => {
      // Before: a relay alias is a relay for everyone, accepted, and never a typo.
      expect(await validate('x.y@mozmail.com', b)).toMatchObject({
        isRelayAlias: true,
        relayProvider: 'Firefox Relay',
        didYouMean: null,
        isDisposable: false,
        verdict: 'accept',
      });
      const put = await stack.call('PUT', '/v1/account/email-rules', {
        headers: a,
        body: { block: { domains: ['Competitor.Example'], tlds: ['.zip'] }, relayAliases: 'review' },
      });
      expect(put.status).toBe(200);
      expect(await json(put)).toMatchObject({
        block: { domains: ['competitor.example'], mxHosts: [], tlds: ['zip'] },
        relayAliases: 'review',
        entries: 2,
      });
      afterKeyCache();

      expect(await validate('sales@eu.competitor.example', a)).toMatchObject({
        verdict: 'reject',
        reasons: expect.arrayContaining(['blocked_by_account']),
      });
      expect((await validate('sales@eu.competitor.example', b)).reasons).not.toContain('blocked_by_account');
      expect(await validate('x.y@mozmail.com', a)).toMatchObject({
        verdict: 'review',
        reasons: ['relay_alias'],
      });
      expect(await validate('x.y@mozmail.com', b)).toMatchObject({ verdict: 'accept', reasons: [] });

      const batch = await json(
        await stack.call('POST', '/v1/email/batch', {
          headers: a,
          body: { emails: ['a@competitor.example', 'b@shop.example'] },
        }),
      );
      expect(batch.results.map((r: { verdict: string }) => r.verdict)).toEqual(['reject', 'accept']);

      const signup = await json(
        await stack.call('POST', '/v1/signup/check', {
          headers: a,
          body: { email: 'a@competitor.example', ip: GOOGLE },
        }),
      );
      expect(signup.reasons).toContain('blocked_by_account');
      expect(signup.score).toBeGreaterThanOrEqual(60);
      expect(signup.verdict).toBe('reject');
    });

    test('refused documents: unknown fields, bad names, too many entries', async () => {
      for (const body of [
        { block: { domains: ['*.example.com'] } },
        { allow: { hosts: [] } },
        { relayAliases: 'sometimes' },
        { block: { domains: Array.from({ length: 5001 }, (_, i) => `d${i}.example`) } },
        ['not', 'an object'],
      ]) {
        const res = await stack.call('PUT', '/v1/account/email-rules', { headers: a, body });
        expect(res.status).toBe(400);
        expect((await json(res)).error).toMatch(/^invalid_/);
      }
      // Still the rules set above.
      expect((await json(await stack.call('GET', '/v1/account/email-rules', { headers: a }))).entries).toBe(
        2,
      );
    });
  });

  describe('travel settings', () => {
    test("A's settings judge A's travel; B keeps the defaults", async () => {
      const put = await stack.call('PUT', '/v1/account/travel', { headers: a, body: { maxSpeedKmh: 20000 } });
      expect(await json(put)).toMatchObject({ maxSpeedKmh: 20000, minDistanceKm: 200, minSeconds: 0 });
      afterKeyCache();
      const trip = async (headers: Record<string, string>) => {
        const userId = `traveller-${Math.random()}`;
        await stack.call('POST', '/v1/risk/check', { headers, body: { userId, ip: LONDON } });
        clock.advance(60 * 60_000);
        return json(await stack.call('POST', '/v1/risk/check', { headers, body: { userId, ip: NEW_YORK } }));
      };
      const mine = await trip(a);
      expect(mine).toMatchObject({ impossibleTravel: false, settings: { maxSpeedKmh: 20000 } });
      const theirs = await trip(b);
      expect(theirs).toMatchObject({ impossibleTravel: true, risk: 'high', settings: { maxSpeedKmh: 1000 } });

      const refused = await stack.call('PUT', '/v1/account/travel', {
        headers: a,
        body: { maxSpeedKmh: 5, extra: 1 },
      });
      expect(refused.status).toBe(400);
    });
  });

  describe('saving from two places at once: ETag and If-Match (docs/rules.md)', () => {
    const TAG = /^"[0-9a-z]+"$/;
    const etagOf = (res: Response) => res.headers.get('etag');
    const putRules = (headers: Record<string, string>, body: unknown, ifMatch?: string) =>
      stack.call('PUT', '/v1/account/email-rules', {
        headers: { ...headers, ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }) },
        body,
      });
    const putTravel = (headers: Record<string, string>, body: unknown, ifMatch?: string) =>
      stack.call('PUT', '/v1/account/travel', {
        headers: { ...headers, ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }) },
        body,
      });
    const putGeofeed = (headers: Record<string, string>, csv: string, ifMatch?: string) =>
      stack.call('PUT', '/v1/account/geofeed', {
        headers: {
          ...headers,
          'Content-Type': 'text/csv',
          ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }),
        },
        body: csv,
      });
    const deleteGeofeedAs = (headers: Record<string, string>, ifMatch?: string) =>
      stack.call('DELETE', '/v1/account/geofeed', {
        headers: { ...headers, ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }) },
      });

    test('email rules: two tabs read the same rules; the second save with the tag read is 412 and changes nothing', async () => {
      const { headers } = await newAccount();
      const read = await stack.call('GET', '/v1/account/email-rules', { headers });
      expect(etagOf(read)).toBe('"defaults"');
      const tab1 = await putRules(headers, { block: { domains: ['competitor.example'] } }, etagOf(read)!);
      expect(tab1.status).toBe(200);
      const saved = etagOf(tab1)!;
      expect(saved).toMatch(TAG);
      expect(saved).not.toBe('"defaults"');
      expect(etagOf(await stack.call('GET', '/v1/account/email-rules', { headers }))).toBe(saved);

      // Tab 2 read before tab 1 saved: its save is refused, tab 1's block stays.
      const tab2 = await putRules(headers, { allow: { domains: ['partner.example'] } }, etagOf(read)!);
      expect(tab2.status).toBe(412);
      const refusal = await json(tab2);
      expect(refusal).toEqual({ error: 'rules_changed', message: expect.any(String) });
      expect(refusal.message).toMatch(
        /^The email rules were changed since you read them \(by key:[^,]+, at 20\d\d-[^)]+\): read them again/,
      );
      const after = await stack.call('GET', '/v1/account/email-rules', { headers });
      expect(etagOf(after)).toBe(saved);
      expect(await json(after)).toMatchObject({
        allow: { domains: [] },
        block: { domains: ['competitor.example'] },
      });

      // Read again, apply the change to what is there: it lands, with a new tag.
      const merged = await putRules(
        headers,
        { allow: { domains: ['partner.example'] }, block: { domains: ['competitor.example'] } },
        saved,
      );
      expect(merged.status).toBe(200);
      expect(etagOf(merged)).toMatch(TAG);
      expect(etagOf(merged)).not.toBe(saved);
      expect(await json(merged)).toMatchObject({ entries: 2 });

      // A change of another rule leaves the email rules' tag as it was.
      expect((await putTravel(headers, { maxSpeedKmh: 1500 })).status).toBe(200);
      const again = await putRules(headers, { block: { domains: ['competitor.example'] } }, etagOf(merged)!);
      expect(again.status).toBe(200);

      // Without If-Match, or with *, the last save wins as before; a weak tag never matches.
      expect((await putRules(headers, { block: { tlds: ['zip'] } })).status).toBe(200);
      const star = await putRules(headers, { block: { tlds: ['zip', 'mov'] } }, '*');
      expect(star.status).toBe(200);
      const weak = await putRules(headers, {}, `W/${etagOf(star)}`);
      expect([weak.status, (await json(weak)).error]).toEqual([412, 'rules_changed']);
    });

    test('10 saves with the same tag at the same moment: exactly one lands, the others are 412', async () => {
      const { headers } = await newAccount();
      const tag = etagOf(await stack.call('GET', '/v1/account/email-rules', { headers }))!;
      const names = Array.from({ length: 10 }, (_, i) => `tab${i}.example`);
      const answers = await Promise.all(
        names.map((name) => putRules(headers, { block: { domains: [name] } }, tag)),
      );
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 412)).toHaveLength(9);
      const winner = answers[statuses.indexOf(200)]!;
      const inForce = await stack.call('GET', '/v1/account/email-rules', { headers });
      expect(etagOf(inForce)).toBe(etagOf(winner));
      expect((await json(inForce)).block.domains).toEqual((await json(winner)).block.domains);

      // Travel settings the same way.
      const travelTag = etagOf(await stack.call('GET', '/v1/account/travel', { headers }))!;
      expect(travelTag).toBe('"defaults"');
      const speeds = Array.from({ length: 10 }, (_, i) => 2000 + i);
      const travels = await Promise.all(
        speeds.map((maxSpeedKmh) => putTravel(headers, { maxSpeedKmh }, travelTag)),
      );
      const travelStatuses = travels.map((res) => res.status);
      expect(travelStatuses.filter((s) => s === 200)).toHaveLength(1);
      expect(travelStatuses.filter((s) => s === 412)).toHaveLength(9);
      const landed = await json(travels[travelStatuses.indexOf(200)]!);
      expect((await json(await stack.call('GET', '/v1/account/travel', { headers }))).maxSpeedKmh).toBe(
        landed.maxSpeedKmh,
      );
    });

    test('travel settings: the tag of the save is the tag read; a stale one is 412', async () => {
      const { headers } = await newAccount();
      const read = await stack.call('GET', '/v1/account/travel', { headers });
      expect(etagOf(read)).toBe('"defaults"');
      const first = await putTravel(headers, { minDistanceKm: 50 }, '"defaults"');
      expect(first.status).toBe(200);
      const tag = etagOf(first)!;
      expect(tag).toMatch(/^"[0-9a-f]{16}"$/);
      expect(etagOf(await stack.call('GET', '/v1/account/travel', { headers }))).toBe(tag);
      const stale = await putTravel(headers, { minDistanceKm: 75 }, '"defaults"');
      expect(stale.status).toBe(412);
      expect((await json(stale)).message).toMatch(
        /^The travel settings were changed since you read them \(by key:/,
      );
      expect((await json(await stack.call('GET', '/v1/account/travel', { headers }))).minDistanceKm).toBe(50);
      const next = await putTravel(headers, { minDistanceKm: 75 }, tag);
      expect(next.status).toBe(200);
      expect(etagOf(next)).not.toBe(tag);
    });

    test('geofeed: 404 names no feed, an upload made meanwhile is not replaced, a stale DELETE is 412', async () => {
      const { headers } = await newAccount();
      const none = await stack.call('GET', '/v1/account/geofeed', { headers });
      expect([none.status, etagOf(none)]).toEqual([404, '"defaults"']);
      const first = await putGeofeed(headers, '8.8.8.0/24,DE,,,\n', '"defaults"');
      expect(first.status).toBe(200);
      const tag = etagOf(first)!;
      expect(tag).toMatch(TAG);
      const read = await stack.call('GET', '/v1/account/geofeed', { headers });
      expect(etagOf(read)).toBe(tag);

      // Another tab that saw no feed: its upload is refused, the feed in force stays.
      const second = await putGeofeed(headers, '8.8.4.0/24,FR,,,\n', '"defaults"');
      expect([second.status, (await json(second)).error]).toEqual([412, 'rules_changed']);
      expect(await (await stack.call('GET', '/v1/account/geofeed', { headers })).text()).toBe(
        '8.8.8.0/24,DE,,,\n',
      );

      // A DELETE based on an older read: refused, the feed stays.
      const newer = await putGeofeed(headers, '8.8.8.0/24,CH,,,\n', tag);
      expect(newer.status).toBe(200);
      const staleDelete = await deleteGeofeedAs(headers, tag);
      expect(staleDelete.status).toBe(412);
      expect((await json(staleDelete)).message).toMatch(
        /^The geofeed was changed since you read it \(by key:/,
      );
      expect((await stack.call('GET', '/v1/account/geofeed', { headers })).status).toBe(200);

      // With the current tag it goes; the old tag of a feed now gone is refused too.
      const deleted = await deleteGeofeedAs(headers, etagOf(newer)!);
      expect([deleted.status, etagOf(deleted)]).toEqual([204, '"defaults"']);
      const gone = await deleteGeofeedAs(headers, etagOf(newer)!);
      expect(gone.status).toBe(412);
      expect((await json(gone)).message).toMatch(/\(now there is none\)/);
      expect((await deleteGeofeedAs(headers, '"defaults"')).status).toBe(204);
    });

    test('a malformed If-Match is 400 invalid_field on every change, and changes nothing', async () => {
      const { headers } = await newAccount();
      for (const bad of ['abc', '"a", "b"', `"${'x'.repeat(250)}"`]) {
        for (const res of await Promise.all([
          putRules(headers, { block: { tlds: ['zip'] } }, bad),
          putTravel(headers, { maxSpeedKmh: 5000 }, bad),
          putGeofeed(headers, '8.8.8.0/24,DE,,,\n', bad),
          deleteGeofeedAs(headers, bad),
        ])) {
          expect(res.status).toBe(400);
          expect(await json(res)).toEqual({
            error: 'invalid_field',
            message: expect.stringMatching(/^If-Match must be \* or one entity tag/),
          });
        }
      }
      expect(etagOf(await stack.call('GET', '/v1/account/email-rules', { headers }))).toBe('"defaults"');
      expect(etagOf(await stack.call('GET', '/v1/account/travel', { headers }))).toBe('"defaults"');
      expect((await stack.call('GET', '/v1/account/geofeed', { headers })).status).toBe(404);
    });
  });

  test('20 saves of travel settings and email rules at the same moment all land, one of each in force', async () => {
    const { headers } = await newAccount();
    const speeds = Array.from({ length: 16 }, (_, i) => 1000 + i * 100);
    const answers = await Promise.all([
      ...speeds.map((maxSpeedKmh) =>
        stack.call('PUT', '/v1/account/travel', { headers, body: { maxSpeedKmh } }),
      ),
      ...['a', 'b', 'c', 'd'].map((name) =>
        stack.call('PUT', '/v1/account/email-rules', {
          headers,
          body: { block: { domains: [`${name}.example`] } },
        }),
      ),
    ]);
    // Each lost race was tried again after a jittered wait instead of answering 503.
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 200));
    const travel = await json(await stack.call('GET', '/v1/account/travel', { headers }));
    expect(speeds).toContain(travel.maxSpeedKmh);
    const rules = await json(await stack.call('GET', '/v1/account/email-rules', { headers }));
    expect(['a.example', 'b.example', 'c.example', 'd.example']).toContain(rules.block.domains[0]);
  });

  test('a change is dated when it took effect: the one in force is the latest, whatever the arrival order', async () => {
    const { id: accountId } = await newAccount();
    // A clock that moves on at every reading, so each try of each save has its own time.
    let tick = Date.parse('2026-11-29T10:00:00Z');
    const ticking = () => {
      tick += 1000;
      return new Date(tick);
    };
    const store = new DynamoRulesStore(
      dynamo(stack.services),
      tableName('Accounts', stack.services.config),
      ticking,
    );
    const arrived = { at: '2026-11-29T09:00:00.000Z', by: 'admin' };
    const made = await Promise.all(
      [1000, 2000, 3000, 4000, 5000, 6000].map((maxSpeedKmh) =>
        store.writeTravel(accountId, { ...DEFAULT_TRAVEL_SETTINGS, maxSpeedKmh }, arrived),
      ),
    );
    // Each is dated by the try that landed, not by when the request arrived.
    for (const meta of made) expect(Date.parse(meta.at)).toBeGreaterThan(Date.parse(arrived.at));
    const inForce = (await store.meta(accountId)).travel!;
    const latest = made.reduce((a, b) => (Date.parse(a.at) > Date.parse(b.at) ? a : b));
    expect(inForce).toEqual(latest);
    // A delete says when it took effect too; deleting nothing changes nothing.
    await store.writeDocument(accountId, 'geofeed', Buffer.from('8.8.8.0/24,DE,,,\n'), {
      count: 1,
      change: arrived,
    });
    const deleted = await store.deleteDocument(accountId, 'geofeed', arrived);
    expect(deleted).toMatchObject({ by: 'admin', at: expect.not.stringMatching(/^2026-11-29T09/) });
    expect(await store.deleteDocument(accountId, 'geofeed', arrived)).toBeNull();
  });

  test('managing rules is not billed', async () => {
    const month = monthKey(stack.services.now());
    const billed = async () => {
      const state = await usageCounter(stack.services).read(accountA, month);
      return { month: state.monthCount, meters: state.meters };
    };
    const before = await billed();
    await stack.call('GET', '/v1/account/travel', { headers: a });
    await stack.call('PUT', '/v1/account/travel', { headers: a, body: {} });
    await stack.call('GET', '/v1/account/email-rules', { headers: a });
    await putFeed('8.8.8.0/24,DE,,,\n');
    await stack.call('GET', '/v1/account/geofeed', { headers: a });
    await stack.call('DELETE', '/v1/account/geofeed', { headers: a });
    expect(await billed()).toEqual(before);
  });
});
