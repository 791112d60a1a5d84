import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Browser, chromium, type Page } from 'playwright-core';
import { accountStore, dashboardDomainDeps, hostnameStore } from '../../functions/lib/aws/services.js';
import { addHostname } from '../../functions/lib/custom-hostnames/lifecycle.js';
import { challengeName, challengeValue } from '../../functions/lib/custom-hostnames/records.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { DEV_MEMBER } from '../../scripts/local/seed.js';
import {
  cspViolations,
  fullPageShot,
  seriousAxeFindings,
  watchFailures,
  watchPage,
} from '../support/chromium.js';
import { linksFor } from '../support/dashboard-session.js';
import { cname, type DnsServer, mx, type Rr, startDnsServer, txt } from '../support/dns-server.js';
import { leftOut } from '../support/left-out.js';
import { afterKeyCache, startTestStack, type TestStack } from '../support/local-stack.js';
import { type Delivery, startReceiver } from '../support/webhook-receiver.js';

// The dashboard end to end, as its person uses it, in Chromium against the real local stack (no
// fake backend): sign in through the link the outbox received, see usage equal to the calls made,
// create and revoke keys, add a custom hostname (DNS on a loopback server) until it is active, run a
// 1,200-row list job and download its results, sign out. Then the Rules page: a geofeed refused row
// by row (nothing applied), a blocked domain in force on a tried address once the key cache has
// moved on, travel settings saved. Then the Webhooks page (its refusals are the fake backend's test): an endpoint on a receiver on 127.0.0.1
// (the local stack allows loopback receivers), its secret shown once, a test event received and
// signed with that secret, its attempt in the delivery log. A screenshot of each page goes to
// test-output/dashboard/e2e-*.png.
// Left out, with a note, where Chromium is not installed.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  leftOut(`the dashboard end-to-end test: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
const maybe = haveChromium ? describe : describe.skip;

const SHOTS = join(PROJECT_ROOT, 'test-output/dashboard');
const HOSTNAME = 'api.e2e-shop.com';
const ROWS = 1_200;

let stack: TestStack;
let dns: DnsServer;
let browser: Browser;
/** The customer's DNS for the hostname; every other name has an MX (the list job's domains). */
const zone = new Map<string, Rr[]>();

const shot = (page: Page, name: string) => fullPageShot(page, join(SHOTS, `e2e-${name}.png`));

const PHONE = { width: 375, height: 740 };
const DESKTOP = { width: 1280, height: 900 };

/** The figure in the Overview's "Requests this month by kind" table for one kind. */
/** Signed in through the link the outbox received, as a person is: the Overview is showing. */
async function signInAsPerson(page: Page): Promise<void> {
  await page.goto(`${stack.url}/dashboard/`);
  await page.getByLabel('E-mail address').fill(DEV_MEMBER);
  await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
  await page.getByRole('status').filter({ hasText: /link/i }).first().waitFor();
  await page.goto((await linksFor(stack, DEV_MEMBER)).at(-1)!);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

async function perKind(page: Page, label: string): Promise<string> {
  const table = page.getByRole('table', { name: 'Requests this month by kind' });
  const cell = table.getByRole('row', { name: new RegExp(`^${label}`) }).getByRole('cell');
  return ((await cell.textContent()) ?? '').trim();
}

maybe('the dashboard end to end on the local stack', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: (name) => zone.get(name) ?? [mx(`mx.${name}`)] });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser.close();
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
  });

  test('sign in by link; usage; keys; a custom hostname; a 1,200-row job; sign out', async () => {
    // Calls of the dev account before signing in: the Overview must show exactly these.
    for (let i = 0; i < 3; i++)
      expect((await stack.call('GET', '/v1/lookup/8.8.8.8', { headers: stack.secret() })).status).toBe(200);
    const validated = await stack.call('POST', '/v1/email/validate', {
      headers: stack.browser(),
      body: { email: 'jane@gmail.com' },
    });
    expect(validated.status).toBe(200);

    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));

    // Sign in: the link arrives in the outbox (SES's local stand-in). The first load, signed out,
    // logs no error in the console: being signed out is the session probe's answer, not a 401.
    const failures = watchFailures(page);
    await page.goto(`${stack.url}/dashboard/`);
    await page.getByLabel('E-mail address').waitFor();
    await page.waitForLoadState('networkidle');
    expect(failures).toEqual([]);
    await page.getByLabel('E-mail address').fill(DEV_MEMBER);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByRole('status').filter({ hasText: /link/i }).first().waitFor();
    const link = (await linksFor(stack, DEV_MEMBER)).at(-1);
    expect(link).toMatch(new RegExp(`^${stack.url}/dashboard/#/sign-in/`));
    await page.goto(link!);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    // Usage equals the calls made: 3 lookups, 1 email check.
    expect(await perKind(page, 'IP lookup')).toBe('3');
    expect(await perKind(page, 'Email checks')).toBe('1');
    expect(await perKind(page, 'Geolocation')).toBe('0');
    // The 90-day chart and the snippets on the base address (this server's).
    await page.getByRole('heading', { name: 'Daily usage' }).waitFor();
    expect(await page.locator('canvas').count()).toBeGreaterThan(0);
    expect(await page.getByText(`curl -s "${stack.url}/v1/lookup/8.8.8.8"`).count()).toBe(1);
    await shot(page, 'overview');

    // Keys: a secret key shown once, which works, then revoked, which stops working.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByLabel('Secret (for servers)').check();
    await page.getByLabel('Label (optional)').fill('e2e backend');
    await page.getByRole('button', { name: 'Create secret key' }).click();
    await page.getByRole('button', { name: 'Copy the new key' }).click();
    const key = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(key).toMatch(/^ni_sec_/);
    await shot(page, 'keys-created');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const withKey = { Authorization: `Bearer ${key}` };
    expect((await stack.call('GET', '/v1/lookup/1.1.1.1', { headers: withKey })).status).toBe(200);
    const name = `e2e backend (…${key.slice(-4)})`;
    await page.getByRole('button', { name: `Revoke key ${name}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('button', { name: `Revoke key ${name}` }).waitFor({ state: 'detached' });
    afterKeyCache();
    expect((await stack.call('GET', '/v1/lookup/1.1.1.1', { headers: withKey })).status).toBe(401);

    // A test key: made with the checkbox, marked in the list, answering the documented test data unbilled.
    await page.getByLabel('Secret (for servers)').check();
    await page.getByLabel('Test key').check();
    await page.getByRole('button', { name: 'Create test secret key' }).click();
    await page.getByRole('heading', { name: 'Your new test secret key' }).waitFor();
    await page.getByRole('button', { name: 'Copy the new key' }).click();
    const testKey = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(testKey).toMatch(/^ni_test_sec_/);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page
      .getByRole('row', { name: new RegExp(`…${testKey.slice(-4)}`) })
      .getByText('test')
      .waitFor();
    const tested = await stack.call('GET', '/v1/lookup/192.0.2.1', {
      headers: { Authorization: `Bearer ${testKey}` },
    });
    expect(await tested.json()).toMatchObject({ city: 'San Francisco', asn: 64496 });
    await shot(page, 'keys');

    // A custom hostname: add it, publish its records on the loopback DNS, check until active.
    await page.getByRole('link', { name: 'Custom hostnames' }).click();
    await page.getByLabel('Hostname').fill(HOSTNAME);
    await page.getByRole('button', { name: 'Add hostname' }).click();
    await page.getByRole('heading', { name: HOSTNAME }).waitFor();
    const record = await hostnameStore(stack.services).getHostname(HOSTNAME);
    zone.set(HOSTNAME, [cname(record!.target)]);
    zone.set(challengeName(HOSTNAME), [txt(challengeValue(record!.token))]);
    await page.getByRole('button', { name: `Check now ${HOSTNAME}` }).click();
    await page.getByText('Active', { exact: true }).first().waitFor();
    await shot(page, 'hostnames');

    // A 1,200-row list job: preview and cost, upload with progress, completion, results.
    await page.getByRole('link', { name: 'List jobs' }).click();
    const rows = ['email,name'];
    for (let i = 0; i < ROWS; i++) rows.push(`person${i}@company${i % 20}.example,Person ${i}`);
    await page.getByLabel(/^Drop a CSV file here/).setInputFiles({
      name: 'e2e-list.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`${rows.join('\n')}\n`),
    });
    await page
      .getByRole('button', { name: `Upload and start the job (${ROWS.toLocaleString('en-US')} credits)` })
      .click();
    const download = page.getByRole('link', { name: 'Download results (CSV)' });
    await download.waitFor({ timeout: 60_000 });
    await page
      .getByRole('status')
      .filter({ hasText: `${ROWS.toLocaleString('en-US')} of ${ROWS.toLocaleString('en-US')} rows checked` })
      .first()
      .waitFor();
    await shot(page, 'jobs');
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    const results = (await (await file.createReadStream()).toArray()).join('');
    const lines = results.trim().split('\r\n');
    expect(lines).toHaveLength(ROWS + 1);
    expect(lines[1]).toMatch(/^person0@company0\.example,person0@company0\.example,accept,/);

    // The job's credits are in the month's usage: 1 email check + the list's addresses.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await perKind(page, 'Email checks')).toBe((ROWS + 1).toLocaleString('en-US'));

    await page.getByRole('link', { name: 'Usage notices' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage notices' }).waitFor();
    await shot(page, 'notices');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the netintel dashboard' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 300_000);

  test('the Rules page: a geofeed refused row by row, then one uploaded, downloaded and removed; a blocked domain in force after the key cache; travel settings saved', async () => {
    const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
    const page = await context.newPage();
    const problems = await watchPage(page);
    const clean = async (viewport: typeof PHONE, name: string) => {
      await page.setViewportSize(viewport);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
        viewport.width,
      );
      expect(await cspViolations(page)).toEqual([]);
      expect(await seriousAxeFindings(page)).toEqual([]);
      await shot(page, name);
    };
    const emailsBilled = async () => {
      const res = await stack.call('GET', '/v1/usage', { headers: stack.secret() });
      expect(res.status).toBe(200);
      return ((await res.json()) as { perKind: { email: number } }).perKind.email;
    };

    await signInAsPerson(page);

    // The session stands in for the secret key, but a change without its CSRF token is refused.
    const session = (await context.cookies(`${stack.url}/v1/`)).find((c) => c.name === 'netintel_session');
    const cookie = { Cookie: `netintel_session=${session!.value}` };
    expect((await stack.call('GET', '/v1/account/travel', { headers: cookie })).status).toBe(200);
    for (const [method, path, headers, body] of [
      ['PUT', '/v1/account/travel', cookie, {}],
      ['PUT', '/v1/account/email-rules', cookie, {}],
      ['PUT', '/v1/account/geofeed', { ...cookie, 'Content-Type': 'text/csv' }, '8.8.8.0/24,DE,,,\n'],
      ['DELETE', '/v1/account/geofeed', cookie, undefined],
      ['POST', '/v1/email/batch', cookie, { emails: ['someone@blocked.example'] }],
    ] as const) {
      const res = await stack.call(method, path, { headers, body });
      expect([method, path, res.status]).toEqual([method, path, 403]);
      expect(((await res.json()) as { error: string }).error).toBe('csrf_token_invalid');
    }

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Rules' }).click();
    await page.getByRole('heading', { level: 1, name: 'Rules' }).waitFor();
    await page.getByRole('button', { name: 'Save email rules' }).waitFor();
    await page.getByRole('button', { name: 'Save travel settings' }).waitFor();
    const none = page.getByText('None: your lookups use the data alone.');
    await none.waitFor();

    // A feed with a special-purpose range on line 2: refused whole, the row named, nothing applied.
    await page.getByLabel('Feed rows').fill('8.8.8.0/24,DE,,Berlin,\n192.168.0.0/16,DE,,,\n');
    await page.getByRole('button', { name: 'Upload the feed' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'The feed was not applied' });
    await refused.waitFor();
    const rows = await refused.getByRole('listitem').allTextContents();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^Line 2: prefix 192\.168\.0\.0\/16 .*special-purpose range/);
    expect(await page.evaluate<string>('document.activeElement.className')).toBe('error-summary');
    expect(await none.count()).toBe(1);
    expect((await stack.call('GET', '/v1/account/geofeed', { headers: stack.secret() })).status).toBe(404);
    await clean(DESKTOP, 'rules-refused-desktop');
    await clean(PHONE, 'rules-refused-375');

    // A try: the address as the API checks it with the session (one email check billed).
    const tryAddress = async (email: string) => {
      const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/email/batch');
      await page.getByLabel('Email address').fill(email);
      await page.getByRole('button', { name: 'Try the address' }).click();
      const res = await answered;
      expect(res.status()).toBe(200);
      await page
        .getByRole('status')
        .filter({ hasText: `${email}:` })
        .waitFor();
      const [result] = ((await res.json()) as { results: { verdict: string; reasons: string[] }[] }).results;
      const verdict = await page.locator('.try-result .badge').textContent();
      return { ...result!, shown: verdict };
    };
    const billedBefore = await emailsBilled();
    const before = await tryAddress('someone@blocked.example');
    expect(['accept', 'review']).toContain(before.verdict);
    expect(before.reasons).not.toContain('blocked_by_account');

    // Block the domain; in force once the key cache has moved on.
    await page.getByLabel('Blocked domains').fill('blocked.example');
    await page.getByRole('button', { name: 'Save email rules' }).click();
    await page.getByRole('status').filter({ hasText: 'Email rules saved: 1 entry.' }).waitFor();
    // The change names the person signed in (the real authorizer passes their address along).
    const byMember = new RegExp(`by ${DEV_MEMBER.replace(/[.+]/g, (c) => `\\${c}`)} \\(dashboard\\)\\.$`);
    expect(await page.getByText(new RegExp(`^1 entry\\. Last changed .* ${byMember.source}`)).count()).toBe(
      1,
    );
    afterKeyCache();
    const after = await tryAddress('someone@blocked.example');
    expect(after.verdict).toBe('reject');
    expect(after.reasons[0]).toBe('blocked_by_account');
    expect(after.shown).toBe('Reject');
    expect(await page.locator('.try-result .reasons').textContent()).toContain('blocked_by_account');
    expect(await emailsBilled()).toBe(billedBefore + 2);

    // Travel settings: saved, shown as saved after a reload, and in force for the key's calls.
    await page.getByLabel('Maximum speed (km/h)').fill('900');
    await page.getByLabel('Minimum distance (km)').fill('50');
    await page.getByLabel('Minimum time (seconds)').fill('600');
    await page.getByRole('button', { name: 'Save travel settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Travel settings saved.' }).waitFor();
    const travel = await stack.call('GET', '/v1/account/travel', { headers: stack.secret() });
    expect(await travel.json()).toMatchObject({
      maxSpeedKmh: 900,
      minDistanceKm: 50,
      minSeconds: 600,
      updatedBy: `dashboard:${DEV_MEMBER}`,
    });

    // A good feed is applied, and is what a reload shows (GET answers the CSV as uploaded).
    const feed = '# office\n8.8.8.0/24,DE,,Berlin,\n';
    await page.getByLabel('Feed rows').fill(feed);
    await page.getByRole('button', { name: 'Upload the feed' }).click();
    await page.getByRole('status').filter({ hasText: 'Geofeed uploaded: 1 prefix' }).waitFor();
    expect(await refused.count()).toBe(0);
    const stored = await stack.call('GET', '/v1/account/geofeed', { headers: stack.secret() });
    expect(stored.status).toBe(200);
    expect(await stored.text()).toBe(feed);

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Rules' }).waitFor();
    const facts = page.locator('#geofeed-title ~ dl');
    await facts.waitFor();
    expect(((await facts.textContent()) ?? '').replace(/\s+/g, ' ')).toMatch(
      new RegExp(`^Prefixes1Size${feed.length} BLast changed\\S`),
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the current feed' }).click(),
    ]);
    expect((await (await download.createReadStream()).toArray()).join('')).toBe(feed);
    const speed = page.getByLabel('Maximum speed (km/h)');
    await speed.waitFor();
    expect(await speed.inputValue()).toBe('900');
    expect(await page.getByLabel('Minimum distance (km)').inputValue()).toBe('50');
    expect(await page.getByLabel('Minimum time (seconds)').inputValue()).toBe('600');
    expect(
      await page
        .getByRole('region', { name: 'Travel settings' })
        .getByText(new RegExp(`^Last changed .* ${byMember.source}`))
        .count(),
    ).toBe(1);
    await clean(DESKTOP, 'rules');

    // Removed after a confirmation: the account's lookups use the data alone again.
    await page.getByRole('button', { name: 'Remove the geofeed' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove geofeed' }).click();
    await none.waitFor();
    expect((await stack.call('GET', '/v1/account/geofeed', { headers: stack.secret() })).status).toBe(404);
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);

  test('the Webhooks page: an endpoint on a loopback receiver with its secret shown once, a test event received signed with it, its attempt in the log after a reload; deleted', async () => {
    const receiver = await startReceiver();
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const problems = await watchPage(page);
    try {
      await signInAsPerson(page);
      await page
        .getByRole('navigation', { name: 'Dashboard' })
        .getByRole('link', { name: 'Webhooks' })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();

      // Added with the session: its secret shown once; the API lists it without.
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByLabel('Description (optional)').fill('e2e receiver');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const shown = page.getByRole('region', { name: 'Signing secret of your new endpoint' });
      await shown.getByRole('alert').filter({ hasText: 'it will not be shown again' }).waitFor();
      const secret = (await shown.locator('code').first().textContent()) ?? '';
      expect(secret).toMatch(/^whsec_/);
      const listed = await stack.call('GET', '/v1/webhooks', { headers: stack.secret() });
      const { endpoints } = (await listed.json()) as { endpoints: Record<string, unknown>[] };
      const endpoint = endpoints.find((e) => e.url === receiver.url);
      expect(endpoint).toMatchObject({ status: 'enabled', description: 'e2e receiver' });
      expect(endpoint).not.toHaveProperty('secret');
      await shown.getByRole('button', { name: 'I have copied it' }).click();
      const card = page.getByRole('region', { name: receiver.url, exact: true });
      await card.getByText('No deliveries yet').waitFor();

      // A test event: the receiver gets it, signed with the secret the page showed.
      await card.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
      await card
        .getByRole('status')
        .filter({ hasText: /^Test event evt_\S+ queued/ })
        .waitFor();
      // Bounded, so a stack that never delivers says so instead of running into the test's timeout.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const delivery = await Promise.race([
        receiver.nth(1),
        new Promise<Delivery>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no delivery reached the receiver within 30 s')), 30_000);
        }),
      ]).finally(() => clearTimeout(timer));
      expect(delivery.event.type).toBe('webhook.test');
      const [t, ...signatures] = String(delivery.headers['netintel-signature']).split(',');
      const expected = createHmac('sha256', secret)
        .update(`${t!.slice(2)}.${delivery.body}`)
        .digest('hex');
      expect(signatures).toContain(`v1=${expected}`);
      await stack.webhooksDrained();

      // After a reload, the attempt is in the log.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      const row = card.getByRole('table', { name: 'Recent deliveries' }).getByRole('row').nth(1);
      await row.waitFor();
      const cells = (await row.getByRole('cell').allTextContents()).map((c) => c.trim());
      expect(cells.slice(1, 5)).toEqual([`webhook.test${delivery.event.id}`, '1', 'Succeeded', '200']);
      expect(cells[5]).toMatch(/^\d[\d,]* ms$/);
      expect(cells[6]).toBe('ok');
      expect(await page.getByText(secret).count()).toBe(0);
      for (const [viewport, name] of [
        [PHONE, 'webhooks-375'],
        [DESKTOP, 'webhooks'],
      ] as const) {
        await page.setViewportSize(viewport);
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
          viewport.width,
        );
        expect(await cspViolations(page)).toEqual([]);
        expect(await seriousAxeFindings(page)).toEqual([]);
        await shot(page, name);
      }

      // Deleted after a confirmation.
      await card.getByRole('button', { name: `Delete ${receiver.url}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Endpoint ${receiver.url} deleted.` })
        .waitFor();
      const gone = await stack.call('GET', `/v1/webhooks/${String(endpoint!.id)}`, {
        headers: stack.secret(),
      });
      expect(gone.status).toBe(404);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await receiver.close();
    }
  }, 120_000);

  test("the Custom hostnames page: a name another account holds is refused with the API's message (409 hostname_claimed), and nothing is added", async () => {
    const TAKEN = 'api.taken-e2e-shop.com';
    const other = await accountStore(stack.services).createAccount('pro', {});
    await addHostname(other.accountId, TAKEN, dashboardDomainDeps(stack.services));
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const problems = await watchPage(page);
    try {
      await signInAsPerson(page);
      await page.getByRole('link', { name: 'Custom hostnames' }).click();
      await page.getByRole('heading', { level: 1, name: 'Custom hostnames' }).waitFor();
      const answered = page.waitForResponse(
        (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/v1/dashboard/hostnames',
      );
      await page.getByLabel('Hostname').fill('API.Taken-E2E-Shop.com');
      await page.getByRole('button', { name: 'Add hostname' }).click();
      const response = await answered;
      expect(response.status()).toBe(409);
      expect(((await response.json()) as { error: string }).error).toBe('hostname_claimed');
      await page
        .getByRole('alert')
        .filter({ hasText: `${TAKEN} is already claimed by another account` })
        .waitFor();
      expect(await page.getByRole('heading', { level: 2, name: TAKEN }).count()).toBe(0);
      expect((await hostnameStore(stack.services).getHostname(TAKEN))?.accountId).toBe(other.accountId);
      expect(await cspViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
