import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Browser, chromium, type Page } from 'playwright-core';
import { hostnameStore } from '../../functions/lib/aws/services.js';
import { challengeName, challengeValue } from '../../functions/lib/custom-hostnames/records.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { DEV_MEMBER } from '../../scripts/local/seed.js';
import { watchFailures } from '../support/chromium.js';
import { linksFor } from '../support/dashboard-session.js';
import { cname, type DnsServer, mx, type Rr, startDnsServer, txt } from '../support/dns-server.js';
import { leftOut } from '../support/left-out.js';
import { afterKeyCache, startTestStack, type TestStack } from '../support/local-stack.js';

// The dashboard end to end, as its person uses it, in Chromium against the real local stack (no
// fake backend): sign in through the link the outbox received, see usage equal to the calls made,
// create and revoke keys, add a custom hostname (DNS on a loopback server) until it is active, run a
// 10,000-row list job and download its results, sign out. A screenshot of each page goes to
// test-output/dashboard/e2e-*.png. Left out, with a note, where Chromium is not installed.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  leftOut(`the dashboard end-to-end test: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
const maybe = haveChromium ? describe : describe.skip;

const SHOTS = join(PROJECT_ROOT, 'test-output/dashboard');
const HOSTNAME = 'api.e2e-shop.com';
const ROWS = 10_000;

let stack: TestStack;
let dns: DnsServer;
let browser: Browser;
/** The customer's DNS for the hostname; every other name has an MX (the list job's domains). */
const zone = new Map<string, Rr[]>();

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(SHOTS, `e2e-${name}.png`), fullPage: true });

/** The figure in the Overview's "Requests this month by kind" table for one kind. */
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

  test('sign in by link; usage; keys; a custom hostname; a 10,000-row job; sign out', async () => {
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

    // A 10,000-row list job: preview and cost, upload with progress, completion, results.
    await page.getByRole('link', { name: 'List jobs' }).click();
    const rows = ['email,name'];
    for (let i = 0; i < ROWS; i++) rows.push(`person${i}@company${i % 20}.example,Person ${i}`);
    await page.getByLabel(/^Drop a CSV file here/).setInputFiles({
      name: 'e2e-list.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`${rows.join('\n')}\n`),
    });
    await page.getByRole('button', { name: `Upload and start the job (10,000 credits)` }).click();
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

    // The job's credits are in the month's usage: 1 email check + 10,000 list addresses.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await perKind(page, 'Email checks')).toBe('10,001');

    await page.getByRole('link', { name: 'Usage notices' }).click();
    await page.getByRole('heading', { level: 1, name: 'Usage notices' }).waitFor();
    await shot(page, 'notices');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the netintel dashboard' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 300_000);
});
