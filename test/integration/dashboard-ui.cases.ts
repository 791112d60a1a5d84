import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page, Route } from 'playwright-core';
import { BUCKET } from '../../functions/lib/aws/resources.js';
import { accountStore, memberStore } from '../../functions/lib/aws/services.js';
import type { DataReport } from '../../functions/lib/data-report.js';
import { DEFAULT_TRAVEL_SETTINGS, TRAVEL_SETTINGS_BOUNDS } from '../../functions/lib/risk/travel-settings.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { DEV_MEMBER } from '../../scripts/local/seed.js';
import { FakeDashboardApi } from '../../web/dashboard/dev/fake-api.js';
import {
  CHROMIUM,
  cspViolations,
  fullPageShot,
  haveChromium,
  launchChromium,
  seriousAxeFindings,
  watchFailures,
  watchPage,
} from '../support/chromium.js';
import { linksFor, requestLink } from '../support/dashboard-session.js';
import { leftOut } from '../support/left-out.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// The dashboard in a real browser (Debian's Chromium driven by playwright-core), served by the
// local stack with its CSP. Signed out, the page talks to the stack itself; signed in, a fake
// backend answering the dashboard's contract stands in for the session routes (Playwright routes
// the page's /v1 requests to web/dashboard/dev/fake-api.ts), for the states the real stack rarely
// shows (a plan without hostnames, a refused origin, a used link, missing data). The Data page is
// also opened signed in on the real stack, to show the layer's own data. The real flow, keys,
// hostname, job and download included, is dashboard-e2e.cases.ts. At 375 px and at desktop width: nothing the CSP
// blocks, no uncaught error, and axe-core finds no serious or critical violation. Screenshots go
// to test-output/dashboard/. Left out, with a note, where Chromium is not installed.
if (!haveChromium)
  leftOut(`the dashboard browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
const maybe = haveChromium ? describe : describe.skip;

const SHOTS = join(PROJECT_ROOT, 'test-output/dashboard');
const PHONE = { width: 375, height: 740 };
const DESKTOP = { width: 1280, height: 900 };

let stack: TestStack;
let browser: Browser;

interface Opened {
  page: Page;
  /** Uncaught errors and console errors (a refused request's "Failed to load resource" aside). */
  problems: string[];
  close(): Promise<void>;
}

/** Serves a request of the page from the fake backend (a JSON body parsed, a CSV one as text). */
async function fromFake(fake: FakeDashboardApi, route: Route): Promise<void> {
  const req = route.request();
  const text = req.postData();
  const headers = await req.allHeaders();
  const json = (headers['content-type'] ?? '').startsWith('application/json');
  const answer = await fake.answer(
    req.method(),
    req.url(),
    text ? (json ? JSON.parse(text) : text) : undefined,
    headers,
  );
  await route.fulfill({
    status: answer.status,
    headers: { 'Content-Type': 'application/json', ...answer.headers },
    body: answer.text ?? (answer.json === undefined ? '' : JSON.stringify(answer.json)),
  });
}

async function open(viewport: { width: number; height: number }, hash = '', fake?: FakeDashboardApi) {
  const context = await browser.newContext({ viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  const page = await context.newPage();
  const problems = await watchPage(page);
  if (fake) {
    await page.route(
      (url) => url.origin === stack.url && url.pathname.startsWith('/v1/'),
      (route) => fromFake(fake, route),
    );
  }
  await page.goto(`${stack.url}/dashboard/${hash}`);
  return { page, problems, close: () => context.close() } satisfies Opened;
}

// Page-side values are read with string expressions: this file is type-checked without the DOM.
const pageWidth = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth');
const focusedText = (page: Page) => page.evaluate<string | undefined>('document.activeElement?.textContent');

/**
 * The focus ends on the element whose text is `text`. A dialog gives it back after its parent
 * unmounted it, so it is waited for: Playwright's locator waits as the page changes, in its own
 * world (waitForFunction would evaluate in the page, which the CSP forbids), up to a bound far from
 * any test's limit.
 */
async function expectFocusOn(page: Page, text: string): Promise<void> {
  await page
    .locator(':focus', { hasText: text })
    .first()
    .waitFor({ timeout: 20_000 })
    .catch(() => undefined);
  expect(await focusedText(page)).toBe(text);
}

/** The page is clean: no CSP report, no uncaught error, no serious axe finding; then a screenshot. */
async function expectClean(opened: Opened, shot: string): Promise<void> {
  expect(await cspViolations(opened.page)).toEqual([]);
  expect(opened.problems).toEqual([]);
  expect(await seriousAxeFindings(opened.page)).toEqual([]);
  await fullPageShot(opened.page, join(SHOTS, `${shot}.png`));
}

maybe('the dashboard in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    stack = await startTestStack();
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  test('/dashboard serves the page with its CSP, and its hashed files for good', async () => {
    const res = await fetch(`${stack.url}/dashboard`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain(`connect-src 'self' ${new URL(stack.endpoints.s3).origin}`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    expect(html).not.toMatch(/<script>|<style|style=/);
    const script = /src="(\/dashboard\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    const asset = await fetch(`${stack.url}${script}`);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${stack.url}/dashboard/app-NOSUCHFILE.js`)).status).toBe(404);
  }, 90_000);

  test('the S3 front answers the browser upload preflight for a page on this machine, as the bucket does in AWS', async () => {
    const preflight = (origin: string) =>
      fetch(`${stack.endpoints.s3}/${BUCKET.localName}`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
      });
    const allowed = await preflight(stack.url);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(stack.url);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    const other = await preflight('https://elsewhere.example');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('signed out, the sign-in form renders at 375 px and at desktop width, labelled, with nothing blocked and no serious axe finding', async () => {
    const opened = await open(PHONE);
    const { page } = opened;
    for (const [viewport, shot] of [
      [PHONE, 'sign-in-375'],
      [DESKTOP, 'sign-in-desktop'],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.getByRole('heading', { name: 'Sign in to the netintel dashboard' }).waitFor();
      expect(await page.title()).toBe('Sign in — netintel dashboard');
      // The link works in whichever browser opens it, not only this one.
      expect(await page.locator('.sign-in form .help').textContent()).toBe(
        'We e-mail you a link that signs you in. It works once, for 15 minutes, in the browser you open it in.',
      );
      await expect(page.getByLabel('E-mail address').isVisible()).resolves.toBe(true);
      await expect(page.getByRole('button', { name: 'Email me a sign-in link' }).isEnabled()).resolves.toBe(
        true,
      );
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await expectClean(opened, shot);
    }
    await opened.close();
  }, 90_000);

  test('signed out, the first load logs no console error: the session probe answers 200 {signedIn: false}', async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const failures = watchFailures(page);
    const probe = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/dashboard/session');
    await page.goto(`${stack.url}/dashboard/`);
    const answer = await probe;
    expect(answer.status()).toBe(200);
    expect(await answer.json()).toEqual({ signedIn: false });
    await page.getByRole('heading', { name: 'Sign in to the netintel dashboard' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(failures).toEqual([]);
    await context.close();
  }, 90_000);

  test('a sign-in link that is used or expired says so above the sign-in form', async () => {
    const fake = new FakeDashboardApi({ signedIn: false });
    const opened = await open(PHONE, '#/sign-in/used-link', fake);
    const alert = opened.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('expired or was already used');
    expect(new URL(opened.page.url()).hash).toBe('');
    await opened.page.getByLabel('E-mail address').fill('ops@example.com');
    await opened.page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await opened.page.getByRole('status').filter({ hasText: 'sign-in link is on its way' }).waitFor();
    await opened.close();
  }, 90_000);

  test('a sign-in link opened while signed in asks first: staying keeps the session and leaves the link unused; opening it switches', async () => {
    // Mallory, a member of another account, sends her own sign-in link to a signed-in person.
    const other = await accountStore(stack.services).createAccount('pro', {});
    const mallory = `mallory-${other.accountId.slice(-6)}@other.example`;
    await memberStore(stack.services).addMember(other.accountId, mallory, new Date());
    const opened = await open(DESKTOP);
    const { page } = opened;
    await page.getByLabel('E-mail address').waitFor();
    expect((await requestLink(stack, DEV_MEMBER)).status).toBe(202);
    await page.goto((await linksFor(stack, DEV_MEMBER)).at(-1)!);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const sessionsOpened: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/v1/dashboard/sessions')
        sessionsOpened.push(r.url());
    });
    expect((await requestLink(stack, mallory)).status).toBe(202);
    const malloryLink = (await linksFor(stack, mallory)).at(-1)!;

    await page.goto(malloryLink);
    await page.getByRole('heading', { level: 1, name: 'Open this sign-in link?' }).waitFor();
    expect(await page.getByText(`This browser is signed in as ${DEV_MEMBER}`).count()).toBe(1);
    await expectClean(opened, 'switch-account');
    await page.getByRole('button', { name: `Stay signed in as ${DEV_MEMBER}` }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    // The token left the address bar, no session was opened, and the person is who they were.
    expect(new URL(page.url()).hash).toBe('#/overview');
    expect(sessionsOpened).toEqual([]);
    expect(await page.locator('.who .email').textContent()).toBe(DEV_MEMBER);

    // Chosen knowingly, the link (still unused) switches the browser to Mallory's account.
    await page.goto(malloryLink);
    await page.getByRole('button', { name: 'Open the link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(sessionsOpened).toHaveLength(1);
    expect(await page.locator('.who .email').textContent()).toBe(mallory);
    await opened.close();
  }, 90_000);

  test('signed in, an address that cannot be read, a used sign-in link and a failed sign-out each say so, and the session is kept', async () => {
    const fake = new FakeDashboardApi();
    const opened = await open(PHONE, '#/%', fake);
    const { page } = opened;

    // A malformed % escape (decodeURIComponent throws on it): a page that says so, not a blank one.
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'part of it cannot be read' }).waitFor();
    expect(await page.title()).toBe('Page not found — netintel dashboard');
    await expectClean(opened, 'invalid-address-375');
    await page.getByRole('link', { name: 'Go to the Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.goto(`${stack.url}/dashboard/#/jobs/%E0%A4%A`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();

    // A used link opened while signed in ("Open the link"): the link fails, the session does not.
    await page.goto(`${stack.url}/dashboard/#/sign-in/used-link`);
    await page.getByRole('button', { name: 'Open the link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page
      .getByRole('alert')
      .filter({
        hasText:
          'This sign-in link has expired or was already used. You are still signed in as ops@example.com.',
      })
      .waitFor();
    expect(new URL(page.url()).hash).toBe('#/overview');
    expect(await page.locator('.who .email').textContent()).toBe('ops@example.com');
    expect(await page.title()).toBe('Overview — netintel dashboard');

    // A sign-out the server did not answer, or answered 503: still signed in, and told so.
    const signOutAnswers = (answer: (route: Route) => Promise<void>) =>
      page.route(
        (url) => url.pathname === '/v1/dashboard/session',
        (route) => (route.request().method() === 'DELETE' ? answer(route) : route.fallback()),
      );
    await signOutAnswers((route) => route.abort('failed'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page
      .getByRole('alert')
      .filter({
        hasText: 'Could not sign out: The service could not be reached. Check your connection. Try again.',
      })
      .waitFor();
    await signOutAnswers((route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'service_unavailable', message: 'Try again in a few seconds.' }),
      }),
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Could not sign out: Try again in a few seconds.' })
      .waitFor();
    expect(await page.locator('.who .email').textContent()).toBe('ops@example.com');
    expect(await page.getByLabel('E-mail address').count()).toBe(0);
    expect((await fake.answer('GET', `${stack.url}/v1/dashboard/session`, undefined)).json).toMatchObject({
      signedIn: true,
    });
    await expectClean(opened, 'sign-out-failed-375');
    await opened.close();
  }, 120_000);

  test('signed in, an answer that is not JSON or lacks its list, two submits at once, a hostname added twice or removed elsewhere: each is said plainly', async () => {
    const fake = new FakeDashboardApi();
    const opened = await open(PHONE, '#/overview', fake);
    const { page } = opened;
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    // A 200 whose body is not JSON, then one without the list it should hold: a plain error each.
    let keysBody = '<html>not json';
    const keysList = (url: URL) => url.pathname === '/v1/dashboard/keys';
    await page.route(keysList, (route) =>
      route.request().method() === 'GET'
        ? route.fulfill({ status: 200, contentType: 'application/json', body: keysBody })
        : route.fallback(),
    );
    const unreadable = page.getByRole('alert').filter({ hasText: 'cannot read (HTTP 200)' });
    await nav.getByRole('link', { name: 'API keys' }).click();
    await unreadable.waitFor();
    expect(await page.getByText('Unexpected token').count()).toBe(0);
    keysBody = '{"keys": null}';
    await nav.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await nav.getByRole('link', { name: 'API keys' }).click();
    await unreadable.waitFor();
    expect(await page.getByText('No keys yet.').count()).toBe(0);
    await page.unroute(keysList);

    // Two submits in one task (before the re-render that disables the button) create one key.
    const creates: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/v1/dashboard/keys') creates.push(r.url());
    });
    await page.getByLabel('Secret (for servers)').check();
    await page.getByLabel('Label (optional)').fill('twice');
    await page.evaluate(
      "const form = document.querySelector('form[aria-labelledby=create-key-title]'); form.requestSubmit(); form.requestSubmit();",
    );
    await page.getByRole('heading', { name: 'Your new secret key' }).waitFor();
    await page.getByRole('row', { name: /twice/ }).first().waitFor();
    expect(creates).toHaveLength(1);
    expect(await page.getByRole('row', { name: /twice/ }).count()).toBe(1);

    // A hostname added is announced; added again, it is said to be there already; removed in
    // another tab, removing it here is done, not an error (and the focus goes to the heading).
    await nav.getByRole('link', { name: 'Custom hostnames' }).click();
    await page.getByLabel('Hostname').fill('api.shop.example.com');
    await page.getByRole('button', { name: 'Add hostname' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'api.shop.example.com added: create the two DNS records' })
      .waitFor();
    await page.getByLabel('Hostname').fill('api.shop.example.com');
    await page.getByRole('button', { name: 'Add hostname' }).click();
    await page.getByRole('status').filter({ hasText: 'api.shop.example.com is already added' }).waitFor();
    expect(await page.getByRole('heading', { level: 2, name: 'api.shop.example.com' }).count()).toBe(1);
    const csrf = { 'x-csrf-token': 'csrf-demo-token' };
    const removed = `${stack.url}/v1/dashboard/hostnames/api.shop.example.com`;
    const gone = await fake.answer('DELETE', removed, undefined, csrf);
    expect(gone.status).toBe(204);
    await page.getByRole('button', { name: 'Remove api.shop.example.com' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove hostname' }).click();
    await page.getByRole('status').filter({ hasText: 'api.shop.example.com removed.' }).waitFor();
    await page.getByText('No custom hostnames yet.').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await expectFocusOn(page, 'Custom hostnames');

    expect(opened.problems).toEqual([]);
    await opened.close();
  }, 120_000);

  test('signed in, every page renders at 375 px, reached through the navigation, with nothing blocked and no serious axe finding', async () => {
    const opened = await open(PHONE, '#/overview', new FakeDashboardApi());
    const { page } = opened;
    for (const [name, title] of [
      ['overview', 'Overview'],
      ['keys', 'API keys'],
      ['hostnames', 'Custom hostnames'],
      ['jobs', 'List jobs'],
      ['notices', 'Usage notices'],
      ['data', 'Data'],
    ]) {
      if (name !== 'overview') {
        await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: title }).click();
      }
      const heading = page.getByRole('heading', { name: title, level: 1 });
      await heading.waitFor();
      expect(await page.title()).toBe(`${title} — netintel dashboard`);
      await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
      if (name === 'overview') await page.locator('.chart-canvas canvas').waitFor();
      // After a navigation the new page's heading has the focus.
      if (name !== 'overview') {
        expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe(title);
      }
      expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
      await expectClean(opened, `${name}-375`);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('alert').filter({ hasText: 'You are signed out.' }).waitFor();
    await page.getByLabel('E-mail address').waitFor();
    await opened.close();
  }, 180_000);

  test("the Data page, signed in on the real stack, shows GET /v1/data's report: the layer's location dataset, the versions and the attribution", async () => {
    // The session route answers only a session: no cookie, or a key in its place, is refused.
    for (const headers of [{}, stack.secret()]) {
      const refused = await stack.call('GET', '/v1/dashboard/data', { headers });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: string }).error).toBe('session_required');
    }
    const res = await stack.call('GET', '/v1/data', { headers: stack.secret() });
    expect(res.status).toBe(200);
    const report = (await res.json()) as DataReport;
    const location = report.datasets.find((d) => d.name === 'dbip-city-lite');
    expect(location).toMatchObject({ area: 'ip', role: 'location', status: 'ok' });

    // Signed in as a person is: the link the outbox received, opened in the page.
    const opened = await open(DESKTOP);
    const { page } = opened;
    await page.getByLabel('E-mail address').waitFor();
    expect((await requestLink(stack, DEV_MEMBER)).status).toBe(202);
    const link = (await linksFor(stack, DEV_MEMBER)).at(-1);
    expect(link).toMatch(new RegExp(`^${stack.url}/dashboard/#/sign-in/`));
    await page.goto(link!);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/dashboard/data');
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Data' }).click();
    await page.getByRole('heading', { level: 1, name: 'Data' }).waitFor();
    // The dashboard's answer is the API's report: the deployment's data, whoever asks.
    const answer = await answered;
    expect(answer.status()).toBe(200);
    expect(answer.headers()['cache-control']).toBe('no-store');
    expect(await answer.json()).toEqual(report);

    const table = page.getByRole('table', { name: 'Datasets in service' });
    await table.waitFor();
    expect(await table.getByRole('row').count()).toBe(report.datasets.length + 1);
    const row = table.getByRole('row', { name: /^dbip-city-lite/ });
    expect(await row.getByRole('rowheader').textContent()).toContain('dbip-city-lite');
    const cells = (await row.getByRole('cell').allTextContents()).map((t) => t.trim());
    expect(cells[0]).toBe('IP lookups: location');
    expect(cells[1]).toContain(location!.source.split(' ')[0]);
    expect(cells[2]).toContain(location!.version);
    expect(cells[4]).toBe(location!.count.toLocaleString('en-US'));
    expect(cells[5]).toBe(location!.licence);
    expect(cells[6]).toBe('In service');
    // The versions, and every credit line the sources ask for (DB-IP's among them).
    for (const version of [report.versions.ip, report.versions.lists].filter(Boolean)) {
      expect(await page.getByText(version!, { exact: true }).count()).toBe(1);
    }
    const credits = page.getByRole('region', { name: 'Attribution' }).getByRole('listitem').allTextContents();
    expect(report.attribution).toContain(location!.attribution);
    expect(await credits).toEqual(report.attribution);
    // What is missing (a layer built without GeoNames or the lists, say) comes first, with its fix.
    const notice = page.getByRole('heading', { level: 2, name: 'Some data is missing' });
    expect(await notice.count()).toBe(report.missing.length > 0 ? 1 : 0);
    await expectClean(opened, 'data-desktop');
    await opened.close();
  }, 120_000);

  test('the Data page puts what is missing at the top, with the fix, at 375 px', async () => {
    const fake = new FakeDashboardApi({ dataMissing: true });
    const report = fake.data();
    const opened = await open(PHONE, '#/data', fake);
    const { page } = opened;
    const notice = page.getByRole('region', { name: 'Some data is missing' });
    await notice.waitFor();
    // The first section of the page, above the versions and the table.
    expect(await page.locator('main h2').first().textContent()).toBe('Some data is missing');
    expect(await notice.getByRole('listitem').allTextContents()).toEqual(report.missing);
    expect(await notice.locator('code').textContent()).toBe('npm run data:refresh');
    const row = page.getByRole('table', { name: 'Datasets in service' }).getByRole('row', {
      name: /^geonames-postal-codes/,
    });
    expect(await row.getByRole('cell').last().textContent()).toBe('Missing');
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectClean(opened, 'data-missing-375');
    // At 320 px (WCAG 1.4.10) too: a credit line's long address wraps instead of widening the page.
    await page.setViewportSize({ width: 320, height: 640 });
    expect(await page.getByRole('region', { name: 'Attribution' }).textContent()).toContain(
      'https://github.com/commenthol/date-holidays',
    );
    expect(await pageWidth(page)).toBeLessThanOrEqual(320);
    await opened.close();
  }, 90_000);

  test('the Rules page: email rules and a try, a geofeed refused row by row then uploaded, downloaded and removed, travel settings; at 375 px and desktop', async () => {
    const opened = await open(PHONE, '#/overview', new FakeDashboardApi());
    const { page } = opened;
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Rules' }).click();
    await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor();
    // Its three sections load side by side.
    await page.getByRole('button', { name: 'Save email rules' }).waitFor();
    await page.getByRole('button', { name: 'Save travel settings' }).waitFor();
    await page.getByText('None: your lookups use the data alone.').waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Loading' }).count()).toBe(0);
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Rules');

    // The travel inputs hold the API's own bounds and defaults (the dashboard repeats them).
    for (const [field, label] of [
      ['maxSpeedKmh', 'Maximum speed (km/h)'],
      ['minDistanceKm', 'Minimum distance (km)'],
      ['minSeconds', 'Minimum time (seconds)'],
    ] as const) {
      const input = page.getByLabel(label);
      expect(await input.getAttribute('min')).toBe(String(TRAVEL_SETTINGS_BOUNDS[field].min));
      expect(await input.getAttribute('max')).toBe(String(TRAVEL_SETTINGS_BOUNDS[field].max));
      expect(await input.inputValue()).toBe(String(DEFAULT_TRAVEL_SETTINGS[field]));
      const help = await page.locator(`#${await input.getAttribute('aria-describedby')}`).textContent();
      expect(help).toContain(`default ${DEFAULT_TRAVEL_SETTINGS[field].toLocaleString('en-US')}`);
    }
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectClean(opened, 'rules-375');

    // Email rules: an entry the API refuses gets its message; then a blocked domain (normalised by
    // the API) and relay aliases for review.
    await page.getByLabel('Blocked top-level domains').fill('co.zip');
    await page.getByRole('button', { name: 'Save email rules' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'block.tlds[0]: one top-level label without dots' })
      .waitFor();
    await page.getByLabel('Blocked top-level domains').fill('');
    await page.getByLabel('Blocked domains').fill('  Blocked.Example\n');
    await page.getByLabel('Privacy-relay aliases').selectOption('review');
    expect(await page.locator('#rules-relay-help').textContent()).toContain('relay_alias and at least');
    await page.getByRole('button', { name: 'Save email rules' }).click();
    await page.getByRole('status').filter({ hasText: 'Email rules saved: 1 entry.' }).waitFor();
    expect(await page.getByLabel('Blocked domains').inputValue()).toBe('blocked.example');
    expect(
      await page.getByText(/^1 entry\. Last changed .* by ops@example\.com \(dashboard\)\.$/).count(),
    ).toBe(1);
    // A save refused after it: its error, and the earlier success no longer beside it.
    await page.getByLabel('Blocked top-level domains').fill('co.zip');
    await page.getByRole('button', { name: 'Save email rules' }).click();
    await page.getByRole('alert').filter({ hasText: 'block.tlds[0]' }).waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Email rules saved' }).count()).toBe(0);
    await page.getByLabel('Blocked top-level domains').fill('');

    // A try shows the verdict, the reasons, the relay service and the suggestion.
    const tryAddress = async (email: string) => {
      await page.getByLabel('Email address').fill(email);
      await page.getByRole('button', { name: 'Try the address' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${email}:` })
        .waitFor();
      return ((await page.locator('.try-result dl').textContent()) ?? '').replace(/\s+/g, ' ');
    };
    expect(await page.getByText('Each try is billed as one email check.').count()).toBe(1);
    expect(await tryAddress('someone@blocked.example')).toMatch(
      /^VerdictRejectReasonsblocked_by_account blocked by your email rulesPrivacy-relay aliasNo/,
    );
    expect(await tryAddress('jane@mozmail.com')).toContain('VerdictReview');
    expect(await page.locator('.try-result dl').textContent()).toContain('Yes: Firefox Relay');
    expect(await tryAddress('jane@gmial.com')).toContain('Did you meanjane@gmail.com');

    // A feed with bad rows: each one named by its line, in a list that takes the focus; nothing applied.
    await page
      .getByLabel('Feed rows')
      .fill('8.8.8.0/24,DE,,Berlin,\n10.0.0.0/8,DE,,,\n192.168.1.0/24,FR,,,\n');
    await page.getByRole('button', { name: 'Upload the feed' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'The feed was not applied' });
    await refused.waitFor();
    expect(await refused.getByRole('listitem').allTextContents()).toEqual([
      'Line 2: prefix 10.0.0.0/8 overlaps a special-purpose range (private)',
      'Line 3: prefix 192.168.1.0/24 overlaps a special-purpose range (private)',
    ]);
    expect(await page.evaluate<string>('document.activeElement.className')).toBe('error-summary');
    expect(await page.getByText('None: your lookups use the data alone.').count()).toBe(1);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectClean(opened, 'rules-refused-375');
    await page.setViewportSize(DESKTOP);
    expect(await pageWidth(page)).toBeLessThanOrEqual(DESKTOP.width);
    await expectClean(opened, 'rules-desktop');

    // A file over the API's 1 MB is refused before it is read.
    await page.getByLabel('Read a CSV file').setInputFiles({
      name: 'huge.csv',
      mimeType: 'text/csv',
      buffer: Buffer.alloc(1_048_577, 'a'),
    });
    await page.getByRole('alert').filter({ hasText: 'huge.csv is larger than 1 MB' }).waitFor();

    // A file's rows go into the box; uploaded, the summary says so; the download is the feed.
    const feed = '# our offices\n8.8.4.0/24,DE,DE-BE,Berlin,\n2001:4860:4860::/48,FR,FR-IDF,Paris,75002\n';
    await page.getByLabel('Read a CSV file').setInputFiles({
      name: 'offices.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(feed),
    });
    await page.getByRole('status').filter({ hasText: 'Read offices.csv' }).waitFor();
    expect(await page.getByLabel('Feed rows').inputValue()).toBe(feed);
    await page.getByRole('button', { name: 'Upload the feed' }).click();
    await page.getByRole('status').filter({ hasText: 'Geofeed uploaded: 2 prefixes' }).waitFor();
    expect(await refused.count()).toBe(0);
    const facts = ((await page.locator('#geofeed-title ~ dl').textContent()) ?? '').replace(/\s+/g, ' ');
    expect(facts).toMatch(/^Prefixes2Size84 BLast changed.* by ops@example\.com \(dashboard\)$/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the current feed' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('geofeed.csv');
    expect((await (await download.createReadStream()).toArray()).join('')).toBe(feed);
    await page.getByRole('button', { name: 'Remove the geofeed' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove geofeed' }).click();
    await page.getByText('None: your lookups use the data alone.').waitFor();
    // Its button went with the feed: the focus goes to the section's heading, not to <body>.
    await expectFocusOn(page, 'Private geofeed');

    // Travel settings: saved, with their last change; a field left empty takes its default.
    await page.getByLabel('Maximum speed (km/h)').fill('900');
    await page.getByLabel('Minimum distance (km)').fill('');
    await page.getByLabel('Minimum time (seconds)').fill('600');
    await page.getByRole('button', { name: 'Save travel settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Travel settings saved.' }).waitFor();
    expect(await page.getByLabel('Minimum distance (km)').inputValue()).toBe('200');
    expect(await page.getByLabel('Maximum speed (km/h)').inputValue()).toBe('900');
    expect(
      await page
        .getByRole('region', { name: 'Travel settings' })
        .getByText(/^Last changed .* by ops@example\.com \(dashboard\)\.$/)
        .count(),
    ).toBe(1);
    // A save that fails (the service unavailable) clears the success before it.
    await page.route(
      (url) => url.pathname === '/v1/account/travel',
      (route) =>
        route.request().method() === 'PUT'
          ? route.fulfill({
              status: 503,
              contentType: 'application/json',
              body: JSON.stringify({ error: 'service_unavailable', message: 'Try again in a few seconds.' }),
            })
          : route.fallback(),
    );
    await page.getByRole('button', { name: 'Save travel settings' }).click();
    await page.getByRole('alert').filter({ hasText: 'Try again in a few seconds.' }).waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Travel settings saved.' }).count()).toBe(0);
    expect(opened.problems).toEqual([]);
    await opened.close();
  }, 180_000);

  test('the Rules page saved from two tabs: the later save is refused (412 rules_changed) with the API message, the first kept; read again, it lands', async () => {
    const fake = new FakeDashboardApi();
    const first = await open(DESKTOP, '#/rules', fake);
    const tab1 = first.page;
    // A second tab of the same browser (the same session), on the same API.
    const tab2 = await tab1.context().newPage();
    const problems2 = await watchPage(tab2);
    await tab2.route(
      (url) => url.origin === stack.url && url.pathname.startsWith('/v1/'),
      (route) => fromFake(fake, route),
    );
    await tab2.goto(`${stack.url}/dashboard/#/rules`);
    for (const tab of [tab1, tab2]) await tab.getByRole('button', { name: 'Save email rules' }).waitFor();

    // Tab 1 saves first.
    await tab1.getByLabel('Blocked domains').fill('first.example');
    await tab1.getByRole('button', { name: 'Save email rules' }).click();
    await tab1.getByRole('status').filter({ hasText: 'Email rules saved: 1 entry.' }).waitFor();

    // Tab 2, still on what it read before, is refused: the API's message, and nothing applied.
    await tab2.getByLabel('Blocked domains').fill('second.example');
    await tab2.getByRole('button', { name: 'Save email rules' }).click();
    const refusal = tab2
      .getByRole('alert')
      .filter({ hasText: 'The email rules were changed since you read them' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(
      /^The email rules were changed since you read them \(by dashboard:ops@example\.com, at .+\): read them again and apply your change to what is there now\.$/,
    );
    expect(await tab2.getByRole('status').filter({ hasText: 'Email rules saved' }).count()).toBe(0);
    const kept = async () =>
      (await fake.answer('GET', `${stack.url}/v1/account/email-rules`, undefined)).json as {
        block: { domains: string[] };
      };
    expect((await kept()).block.domains).toEqual(['first.example']);
    await expectClean({ page: tab2, problems: problems2, close: async () => undefined }, 'rules-changed');

    // Read again: what is shown is current (tab 1's entry), the form keeps what was typed, and the
    // focus is on the save; the save then lands.
    await tab2.getByRole('button', { name: 'Reload the current email rules' }).click();
    await tab2.getByRole('status').filter({ hasText: 'The current email rules are shown above' }).waitFor();
    expect(await refusal.count()).toBe(0);
    expect(
      await tab2.getByText(/^1 entry\. Last changed .* by ops@example\.com \(dashboard\)\.$/).count(),
    ).toBe(1);
    expect(await tab2.getByLabel('Blocked domains').inputValue()).toBe('second.example');
    expect(await focusedText(tab2)).toBe('Save email rules');
    await tab2.getByLabel('Blocked domains').fill('first.example\nsecond.example');
    await tab2.getByRole('button', { name: 'Save email rules' }).click();
    await tab2.getByRole('status').filter({ hasText: 'Email rules saved: 2 entries.' }).waitFor();
    expect((await kept()).block.domains).toEqual(['first.example', 'second.example']);

    // Tab 1 is now the stale one: its next save is refused too, never applied over tab 2's.
    await tab1.getByLabel('Blocked domains').fill('');
    await tab1.getByRole('button', { name: 'Save email rules' }).click();
    await tab1
      .getByRole('alert')
      .filter({ hasText: 'The email rules were changed since you read them' })
      .waitFor();
    expect((await kept()).block.domains).toEqual(['first.example', 'second.example']);
    expect(first.problems).toEqual([]);
    expect(problems2).toEqual([]);
    await first.close();
  }, 180_000);

  test('the Webhooks page: endpoints and their deliveries, a refused URL with the API message, an endpoint added with its secret shown once, a test event, a redelivery, a rotation, enable and delete; at 375 px and desktop', async () => {
    const opened = await open(PHONE, '#/overview', new FakeDashboardApi());
    const { page } = opened;
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    const card = (url: string) => page.getByRole('region', { name: url, exact: true });
    const orders = card('https://hooks.example.com/netintel');
    const alerts = card('https://alerts.example.org/hooks/usage');
    // Each endpoint with its status, events and delivery log; the disabled one says why.
    await orders.getByRole('table', { name: 'Recent deliveries' }).waitFor();
    await alerts.getByRole('table', { name: 'Recent deliveries' }).waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Loading' }).count()).toBe(0);
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Webhooks');
    expect(await orders.locator('.badge').first().textContent()).toBe('Enabled');
    expect(await orders.locator('dl').textContent()).toMatch(
      /^Eventsjob\.completedjob\.failedDescriptionOrder pipeline/,
    );
    expect(await alerts.locator('.badge').first().textContent()).toBe('Disabled');
    expect(await alerts.locator('.reason').textContent()).toMatch(
      /^Disabled .*: every attempt to deliver evt_\S+ for 24 hours failed \(last: HTTP 500\)\. Once the receiver works again.*Test events and redeliveries wait until it is enabled\.$/,
    );
    // A disabled endpoint gets nothing: its test and redelivery buttons are off until it is enabled.
    const alertsTest = alerts.getByRole('button', {
      name: 'Send test event to https://alerts.example.org/hooks/usage',
    });
    expect(await alertsTest.isDisabled()).toBe(true);
    expect(
      await alerts
        .getByRole('button', { name: /^Redeliver event / })
        .first()
        .isDisabled(),
    ).toBe(true);
    const rows = orders.getByRole('table').getByRole('row');
    expect(await rows.count()).toBe(4);
    const failed = (await rows.nth(2).getByRole('cell').allTextContents()).map((t) => t.trim());
    expect(failed.slice(1, 6)).toEqual([
      'job.failedevt_am9iLTItZmFpbGVkLWV2ZW50',
      '1',
      'Failed',
      '503',
      '2,210 ms',
    ]);
    // A long answer shows its start; the whole of it folds away behind the start.
    const excerpt = rows.nth(2).locator('summary');
    expect(await excerpt.textContent()).toMatch(/^<html><head><title>503 Service Unavailable.{30,}…$/);
    expect(await rows.nth(2).locator('pre').isVisible()).toBe(false);
    expect(failed[6]).toContain('Please try again later.');
    expect(
      (await alerts.getByRole('table').getByRole('row').nth(2).getByRole('cell').allTextContents())[4],
    ).toBe('None');
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectClean(opened, 'webhooks-375');

    // A URL the API refuses: its message, nothing added.
    await page.getByLabel('Endpoint URL').fill('https://10.0.0.1/');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Webhooks go to public addresses only: 10.0.0.1 is a private address.' })
      .waitFor();
    // No event chosen: said before anything is sent.
    await page.getByLabel('Endpoint URL').fill('https://receiver.example.net/hooks');
    for (const type of ['job.completed', 'job.failed', 'usage.threshold'])
      await page.getByLabel(type).uncheck();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').filter({ hasText: 'Choose at least one event' }).waitFor();

    // Added: the secret is shown once, with its warning and copy button; then it is gone for good.
    await page.getByLabel('job.completed').check();
    await page.getByLabel('usage.threshold').check();
    await page.getByLabel('Description (optional)').fill('CI receiver');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const shown = page.getByRole('region', { name: 'Signing secret of your new endpoint' });
    await shown
      .getByRole('alert')
      .filter({ hasText: 'Copy this signing secret now: it will not be shown again.' })
      .waitFor();
    const secret = (await shown.locator('code').first().textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await shown
      .getByRole('button', { name: 'Copy the signing secret of https://receiver.example.net/hooks' })
      .click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
    const added = card('https://receiver.example.net/hooks');
    await added.getByText('No deliveries yet').waitFor();
    expect(await added.locator('dl').textContent()).toMatch(
      /^Eventsjob\.completedusage\.thresholdDescriptionCI receiver/,
    );
    expect(await page.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
    expect(await pageWidth(page)).toBeLessThanOrEqual(PHONE.width);
    await expectClean(opened, 'webhooks-secret-375');
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).waitFor();
    expect(await page.getByText(secret).count()).toBe(0);

    // A test event: queued, and its attempt shows in the log without a reload.
    await added
      .getByRole('button', { name: 'Send test event to https://receiver.example.net/hooks' })
      .click();
    await added
      .getByRole('status')
      .filter({ hasText: /^Test event evt_\S+ queued/ })
      .waitFor();
    const testRow = added.getByRole('table').getByRole('row').nth(1);
    await testRow.waitFor();
    expect((await testRow.getByRole('cell').allTextContents()).slice(1, 7)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^webhook\.testevt_/), 'Succeeded', '200', 'ok']),
    );
    // A redelivery of a logged event.
    await orders
      .getByRole('button', { name: 'Redeliver event evt_am9iLTItZmFpbGVkLWV2ZW50 (attempt 1)' })
      .click();
    await orders
      .getByRole('status')
      .filter({ hasText: 'Event evt_am9iLTItZmFpbGVkLWV2ZW50 queued again' })
      .waitFor();
    await orders.getByRole('table').getByRole('row').nth(4).waitFor();

    // A rotation keeping the old secret an hour: the new secret once, and until when the old one signs.
    await added.getByRole('button', { name: 'Rotate secret of https://receiver.example.net/hooks' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('The current secret keeps signing for').selectOption({ label: '1 hour' });
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = added.getByRole('region', { name: 'New signing secret' });
    await rotated.getByRole('alert').filter({ hasText: 'it will not be shown again' }).waitFor();
    const newSecret = (await rotated.locator('code').first().textContent()) ?? '';
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    expect(await rotated.textContent()).toContain('The previous secret also signs deliveries until');
    expect(await added.locator('dl').textContent()).toContain('Previous secretStill signs deliveries until');
    await rotated.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByText(newSecret).count()).toBe(0);
    // Closed by Escape, the dialog gives the focus back to the button that opened it.
    await added.getByRole('button', { name: 'Rotate secret of https://receiver.example.net/hooks' }).click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await expectFocusOn(page, 'Rotate secret of https://receiver.example.net/hooks');

    // The disabled endpoint enabled again; the new one deleted after a confirmation.
    await alerts.getByRole('button', { name: 'Enable https://alerts.example.org/hooks/usage' }).click();
    await alerts.getByRole('status').filter({ hasText: 'Endpoint enabled' }).waitFor();
    expect(await alerts.locator('.badge').first().textContent()).toBe('Enabled');
    expect(await alerts.locator('.reason').count()).toBe(0);
    expect(await alertsTest.isDisabled()).toBe(false);
    await added.getByRole('button', { name: 'Delete https://receiver.example.net/hooks' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Endpoint https://receiver.example.net/hooks deleted.' })
      .waitFor();
    expect(await added.count()).toBe(0);
    // The card went with its Delete button: the focus goes to the list's heading.
    await expectFocusOn(page, 'Your endpoints');
    await page.setViewportSize(DESKTOP);
    expect(await pageWidth(page)).toBeLessThanOrEqual(DESKTOP.width);
    await expectClean(opened, 'webhooks-desktop');
    await opened.close();
  }, 120_000);

  test("a publishable key's origins are edited in a dialog; a bad origin gets the API's message", async () => {
    const opened = await open(PHONE, '#/keys', new FakeDashboardApi());
    const { page } = opened;
    await page.getByRole('button', { name: 'Edit origins of key Shop front (…x9Qa)' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Allowed origins, one per line').fill('https://shop.example.com\nnot an origin');
    await dialog.getByRole('button', { name: 'Save origins' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'is not an origin' }).waitFor();
    await dialog
      .getByLabel('Allowed origins, one per line')
      .fill('https://shop.example.com\nhttps://new.example.com');
    await dialog.getByRole('button', { name: 'Save origins' }).click();
    await page.getByRole('cell', { name: /https:\/\/new\.example\.com/ }).waitFor();
    // Each dialog gives the focus back to the button that opened it (WCAG 2.4.3)...
    await expectFocusOn(page, 'Edit origins of key Shop front (…x9Qa)');
    const revoke = page.getByRole('button', { name: 'Revoke key Backend (…T0pz)' });
    await revoke.click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expectFocusOn(page, 'Revoke key Backend (…T0pz)');
    await revoke.click();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await expectFocusOn(page, 'Revoke key Backend (…T0pz)');
    // ...or, when the action took the button away, to the list's heading.
    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('status').filter({ hasText: 'Key Backend (…T0pz) revoked.' }).waitFor();
    await expectFocusOn(page, 'Your keys');
    await opened.close();
  }, 90_000);

  // By keyboard: a submit button keeps the focus while its request runs (a disabled one would drop
  // it to <body>), and what replaces the form (a key or secret shown once) takes it.
  test('by keyboard, creating a key: a refused origin keeps the focus on the button; the new key takes it, then the list', async () => {
    const opened = await open(DESKTOP, '#/keys', new FakeDashboardApi());
    const { page } = opened;
    const create = page.getByRole('button', { name: 'Create publishable key' });
    await create.waitFor();
    // A refused origin: Tab from the field to the button, Enter; the focus is still on the button.
    await page.getByLabel('Allowed origins').fill('not an origin');
    await page.keyboard.press('Tab');
    expect(await focusedText(page)).toBe('Create publishable key');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'is not an origin' }).waitFor();
    expect(await focusedText(page)).toBe('Create publishable key');
    // A key made: its panel, shown once, takes the focus; "I have copied it" gives it to the list.
    await page.getByLabel('Allowed origins').fill('https://shop.example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expectFocusOn(page, 'Your new publishable key');
    await page.getByRole('button', { name: 'I have copied it' }).focus();
    await page.keyboard.press('Enter');
    await create.waitFor();
    expect(await focusedText(page)).toBe('Your keys');
    expect(opened.problems).toEqual([]);
    await opened.close();
  }, 90_000);

  test('by keyboard, in the origins dialog: a refused origin keeps the focus on Save, inside the dialog', async () => {
    const opened = await open(DESKTOP, '#/keys', new FakeDashboardApi());
    const { page } = opened;
    await page.getByRole('button', { name: 'Edit origins of key Shop front (…x9Qa)' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Allowed origins, one per line').fill('not an origin');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focusedText(page)).toBe('Save origins');
    await page.keyboard.press('Enter');
    await dialog.getByRole('alert').filter({ hasText: 'is not an origin' }).waitFor();
    expect(await focusedText(page)).toBe('Save origins');
    await page.keyboard.press('Escape');
    await opened.close();
  }, 90_000);

  test('by keyboard, adding a webhook: a refused URL keeps the focus on the button; the secret shown once takes it, then the list', async () => {
    const opened = await open(DESKTOP, '#/webhooks', new FakeDashboardApi());
    const { page } = opened;
    const add = page.getByRole('button', { name: 'Add endpoint' });
    await add.waitFor();
    // Refused for its scheme (the fake answers as the API does); nothing is ever dialled.
    await page.getByLabel('Endpoint URL').fill('http://receiver.example.net/hooks');
    await add.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'over https only' }).waitFor();
    expect(await focusedText(page)).toBe('Add endpoint');
    await page.getByLabel('Endpoint URL').fill('https://receiver.example.net/hooks');
    await add.focus();
    await page.keyboard.press('Enter');
    await expectFocusOn(page, 'Signing secret of your new endpoint');
    await page.getByRole('button', { name: 'I have copied it' }).focus();
    await page.keyboard.press('Enter');
    await add.waitFor();
    expect(await focusedText(page)).toBe('Your endpoints');
    expect(opened.problems).toEqual([]);
    await opened.close();
  }, 90_000);

  test("by keyboard, an endpoint's own buttons keep the focus while their request runs: a test event, disable, refresh", async () => {
    const opened = await open(DESKTOP, '#/webhooks', new FakeDashboardApi());
    const { page } = opened;
    const orders = page.getByRole('region', { name: 'https://hooks.example.com/netintel', exact: true });
    const sendTest = orders.getByRole('button', {
      name: 'Send test event to https://hooks.example.com/netintel',
    });
    await sendTest.focus();
    await page.keyboard.press('Enter');
    await orders
      .getByRole('status')
      .filter({ hasText: /^Test event \S+ queued/ })
      .waitFor();
    expect(await focusedText(page)).toBe('Send test event to https://hooks.example.com/netintel');
    await orders.getByRole('button', { name: 'Disable https://hooks.example.com/netintel' }).focus();
    await page.keyboard.press('Enter');
    await orders.getByRole('status').filter({ hasText: 'Endpoint disabled' }).waitFor();
    expect(await focusedText(page)).toBe('Enable https://hooks.example.com/netintel');
    // The deliveries' Refresh keeps it too while the list loads again.
    const refreshed = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/deliveries'));
    await orders
      .getByRole('button', { name: 'Refresh the deliveries to https://hooks.example.com/netintel' })
      .focus();
    await page.keyboard.press('Enter');
    await refreshed;
    await expectFocusOn(page, 'Refresh the deliveries to https://hooks.example.com/netintel');
    await opened.close();
  }, 90_000);

  test('by keyboard, email rules saved: the form starts again from the answer with the focus on its Save button', async () => {
    const opened = await open(DESKTOP, '#/rules', new FakeDashboardApi());
    const { page } = opened;
    const save = page.getByRole('button', { name: 'Save email rules' });
    await save.waitFor();
    await page.getByLabel('Blocked domains').fill('blocked.example');
    await save.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Email rules saved' }).waitFor();
    expect(await focusedText(page)).toBe('Save email rules');
    expect(opened.problems).toEqual([]);
    await opened.close();
  }, 90_000);

  test('a webhook URL longer than 2,048 characters is sent whole and refused with the API message, not cut short', async () => {
    const fake = new FakeDashboardApi();
    const opened = await open(PHONE, '#/webhooks', fake);
    const { page } = opened;
    const long = `https://receiver.example.net/${'a'.repeat(2100)}`;
    const field = page.getByLabel('Endpoint URL');
    await field.fill(long);
    expect((await field.inputValue()).length).toBe(long.length);
    const sent = page.waitForRequest(
      (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/v1/webhooks',
    );
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(JSON.parse((await sent).postData() ?? '{}').url).toBe(long);
    await page.getByRole('alert').filter({ hasText: 'The URL is longer than 2,048 characters.' }).waitFor();
    expect(await page.getByRole('button', { name: 'I have copied it' }).count()).toBe(0);
    await opened.close();
  }, 90_000);

  test('"Try an address" with only spaces is refused in the page: nothing is sent, nothing billed', async () => {
    const opened = await open(PHONE, '#/rules', new FakeDashboardApi());
    const { page } = opened;
    const batches: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/v1/email/batch') batches.push(r.postData() ?? '');
    });
    await page.getByLabel('Email address').fill('   ');
    await page.getByRole('button', { name: 'Try the address' }).click();
    await page.getByRole('alert').filter({ hasText: 'Enter an email address to try.' }).waitFor();
    expect(batches).toEqual([]);
    // A real one, with spaces around, is sent trimmed.
    await page.getByLabel('Email address').fill('  someone@example.com ');
    await page.getByRole('button', { name: 'Try the address' }).click();
    await page.getByRole('status').filter({ hasText: 'someone@example.com:' }).waitFor();
    expect(batches.map((b) => JSON.parse(b))).toEqual([{ emails: ['someone@example.com'] }]);
    await opened.close();
  }, 90_000);

  test("a failed sign-in link's message goes when the tab goes to another address", async () => {
    const fake = new FakeDashboardApi({ signedIn: false });
    const opened = await open(PHONE, '#/sign-in/garbage', fake);
    const { page } = opened;
    const used = page.getByText('This sign-in link has expired or was already used.');
    await used.waitFor();
    await page.evaluate("location.hash = '#/nope'");
    await used.waitFor({ state: 'detached', timeout: 5_000 }).catch(() => undefined);
    await page.getByRole('heading', { name: 'Sign in to the netintel dashboard' }).waitFor();
    expect(await used.count()).toBe(0);
    await opened.close();
  }, 90_000);

  test('a plan without custom hostnames gets the upgrade note instead of the form', async () => {
    const opened = await open(PHONE, '#/hostnames', new FakeDashboardApi({ eligible: false }));
    await opened.page.getByText('Your plan does not include custom hostnames').waitFor();
    expect(await opened.page.getByLabel('Hostname').count()).toBe(0);
    await opened.close();
  }, 90_000);

  test('a .csv.gz is decompressed in the browser for its preview; a file the API would refuse is refused with its reason', async () => {
    const opened = await open(PHONE, '#/jobs', new FakeDashboardApi());
    const { page } = opened;
    const rows = Array.from({ length: 500 }, (_, i) => `user${i % 250}@example.com`).join('\n');
    await page.getByLabel(/Drop a CSV file here/).setInputFiles({
      name: 'list.csv.gz',
      mimeType: 'application/gzip',
      buffer: gzipSync(`email\n${rows}\n`),
    });
    await page.getByText('First rows').waitFor();
    const facts = (await page.locator('.preview dl').textContent()) ?? '';
    expect(facts).toContain('gzip');
    expect(facts).toMatch(/Rows with an address500/);
    expect(facts).toMatch(/Distinct addresses250/);

    await page.getByLabel(/Drop a CSV file here/).setInputFiles({
      name: 'broken.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email\na@example.com\n"b@example.com\n'),
    });
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('the quoted field opened on line 3 is never closed');
    expect(await page.getByRole('button', { name: /Upload and start/ }).count()).toBe(0);
    await opened.close();
  }, 90_000);
});
