import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page, Route } from 'playwright-core';
import { accountStore } from '../../functions/lib/aws/services.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import {
  cspViolations,
  fullPageShot,
  haveChromium,
  launchChromium,
  seriousAxeFindings,
  watchPage,
} from '../support/chromium.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { leftOut } from '../support/left-out.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// The signup-form widget (clients/widget) in Chromium: its example page, served as the repository
// holds it (example/ beside dist/, as any static file server would) from http://localhost:<port>
// with a strict CSP and a publishable key for that origin, suggests the fix of a typo, takes it on a
// click, and fills the country from GET /v1/geo; the same page from an origin the key does not list
// gets nothing (the browser blocks the calls) and still submits. A slow or hung API is the real one
// behind a held route; the page's timers are Playwright's clock where a timeout is waited for.

if (!haveChromium) leftOut('the widget browser test: no Chromium (apt-get install chromium)');
const maybe = haveChromium ? describe : describe.skip;

const WIDGET = join(PROJECT_ROOT, 'clients/widget');
const SHOTS = join(PROJECT_ROOT, 'test-output/widget');
const CLIENT_DIST = join(PROJECT_ROOT, 'clients/typescript/dist');
const CLIENT_PAGE =
  '<!doctype html><html lang="en"><title>client</title><script type="module" src="client-page.js"></script></html>';
/** A page's own module using @netintel/client with the publishable key. */
const CLIENT_SCRIPT = `import { Netintel, NetintelError } from './client/index.js';
const client = new Netintel({ baseUrl: 'API_URL', publishableKey: 'PUBLISHABLE_KEY' });
const refused = await client.usage().catch((e) => e instanceof NetintelError && e.code);
window.clientResult = { geo: await client.geo(), email: await client.validateEmail('jane@gmial.com'), refused };
`;
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
/** A secret key's shape (accounts/api-key.ts): the widget must refuse it without sending it. */
const SECRET_KEY = `ni_sec_${'x'.repeat(32)}`;

let stack: TestStack;
let dns: DnsServer;
let browser: Browser;
let pages: Server;

/**
 * clients/widget/example/ and clients/widget/dist/ as they are in the repository (the page loads
 * ../dist/…), with only the example's placeholders replaced: this stack's address, and `key` (or
 * the page's ?key=); and the TypeScript client's page and ES modules.
 */
function examplePageServer(apiUrl: string, key: () => string): Promise<Server> {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let path = url.pathname;
    if (path.endsWith('/')) path += 'index.html';
    let file = '';
    // The TypeScript client's ES modules, as a page without a bundler imports them.
    if (path.startsWith('/client/')) file = join(CLIENT_DIST, path.slice('/client/'.length));
    // The example page with its widget script tag twice (a site including it from two places).
    else if (path === '/example/twice.html') file = join(WIDGET, 'example/index.html');
    else if (/^\/(example|dist)\//.test(path)) file = join(WIDGET, path);
    try {
      if (file && !file.startsWith(`${WIDGET}/`) && !file.startsWith(`${CLIENT_DIST}/`)) throw new Error();
      let body =
        path === '/client-page.html'
          ? CLIENT_PAGE
          : path === '/client-page.js'
            ? CLIENT_SCRIPT.replace('API_URL', apiUrl).replace('PUBLISHABLE_KEY', key())
            : await readFile(file, 'utf8');
      if (path === '/example/index.html' || path === '/example/twice.html') {
        body = body
          .replace('http://127.0.0.1:8787', apiUrl)
          .replace('YOUR_PUBLISHABLE_KEY', url.searchParams.get('key') ?? key());
      }
      if (path === '/example/twice.html') {
        const tag = /<script src="\.\.\/dist\/netintel-widget\.js"[^>]*><\/script>/.exec(body)?.[0] ?? '';
        body = body.replace(tag, `${tag}\n${tag}`);
      }
      res.writeHead(200, {
        'Content-Type': `${TYPES[extname(path)] ?? 'text/plain'}; charset=utf-8`,
        'Content-Security-Policy': `default-src 'self'; connect-src ${apiUrl}; base-uri 'none'; form-action 'self'`,
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function openExample(
  origin: string,
  path = 'example/',
  options: { clock?: boolean; before?: (page: Page) => void } = {},
) {
  const context = await browser.newContext({ viewport: { width: 375, height: 700 } });
  const page = await context.newPage();
  const problems = await watchPage(page);
  options.before?.(page);
  // Every netintel:result the page gets, in order (an init script: the page's CSP does not govern it).
  await page.addInitScript(
    "window.netintelResults = []; document.addEventListener('netintel:result', (e) => window.netintelResults.push(e.detail));",
  );
  // The page's timers (the widget's debounce and request timeout) on a clock the test can move on.
  if (options.clock) await context.clock.install();
  // The visitor comes from 8.8.8.8, as a proxy in front of the API would say (the local stack
  // trusts X-Forwarded-For here): loopback has no country to fill in.
  await page.route(
    (url) => url.origin === stack.url && url.pathname === '/v1/geo',
    async (route) =>
      route.continue({ headers: { ...route.request().headers(), 'x-forwarded-for': '8.8.8.8' } }),
  );
  const validations: string[] = [];
  /** The page's GET /v1/geo requests (each is billed). */
  const geos: string[] = [];
  /** What the page's own origin did not serve: the page's files must all be where it says. */
  const missing: string[] = [];
  page.on('request', (req) => {
    if (req.url().endsWith('/v1/email/validate') && req.method() === 'POST')
      validations.push(req.postData() ?? '');
    if (req.url().startsWith(`${stack.url}/v1/geo`) && req.method() === 'GET') geos.push(req.url());
  });
  page.on('response', (res) => {
    if (res.url().startsWith(origin) && res.status() >= 400) missing.push(`${res.status()} ${res.url()}`);
  });
  page.on('requestfailed', (req) => {
    if (req.url().startsWith(origin)) missing.push(`failed ${req.url()}`);
  });
  await page.goto(`${origin}/${path}`);
  return { page, problems, validations, geos, missing, close: () => context.close() };
}

type Result = { email: string; result: { didYouMean: string | null } | null; error?: string };

/** The netintel:result details the page has had so far. */
function results(page: Page): Promise<Result[]> {
  return page.evaluate(() => (globalThis as unknown as { netintelResults: Result[] }).netintelResults);
}

/** Waits for the page's `count`th netintel:result; resolves to them all. */
async function waitForResults(page: Page, count: number): Promise<Result[]> {
  await page.waitForFunction(
    (count) => (globalThis as unknown as { netintelResults: unknown[] }).netintelResults.length >= count,
    count,
  );
  return results(page);
}

/**
 * Holds the first check of `email` (the API's answer to it does not come until it is released, or
 * ever); every other call goes through. Resolves once the held request has been sent.
 */
async function holdFirstCheck(page: Page, email: string): Promise<{ sent: Promise<Route> }> {
  let sent!: (route: Route) => void;
  const held = new Promise<Route>((resolve) => {
    sent = resolve;
  });
  let holding = true;
  await page.route(
    (url) => url.origin === stack.url && url.pathname === '/v1/email/validate',
    async (route) => {
      const request = route.request();
      if (holding && request.method() === 'POST' && request.postDataJSON()?.email === email) {
        holding = false;
        sent(route);
      } else {
        await route.continue();
      }
    },
  );
  return { sent: held };
}

/** The class of the element that has keyboard focus (or BODY's tag name). */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const active = (
      globalThis as unknown as { document: { activeElement: { className: string; tagName: string } } }
    ).document.activeElement;
    return active.className || active.tagName;
  });
}

/** Waits until the element's text (or a form field's value) is `expected`. A function, not a string: the page's CSP refuses the eval a string predicate needs. */
function waitForText(page: Page, id: string, expected: string) {
  return page.waitForFunction(
    ([id, expected]) => {
      const el = (
        globalThis as unknown as {
          document: { getElementById(id: string): { value?: string; textContent: string } };
        }
      ).document.getElementById(id);
      return (el.value ?? el.textContent) === expected;
    },
    [id, expected] as const,
  );
}

async function typeAndLeave(page: Page, value: string) {
  await page.fill('#email', value);
  await page.focus('#country');
}

maybe('the signup-form widget in Chromium', () => {
  let key = '';
  let port = 0;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dns = await startDnsServer({
      answer: (name) => (name === 'gmail.com' ? [mx('gmail-smtp-in.l.google.com')] : 'nxdomain'),
    });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack({ trustForwardedFor: true });
    pages = await examplePageServer(stack.url, () => key);
    port = (pages.address() as AddressInfo).port;
    key = (
      await accountStore(stack.services).createKey(stack.dev.accountId, 'publishable', [
        `http://localhost:${port}`,
      ])
    ).key;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pages?.close(resolve));
    await stack?.close();
    await dns?.close();
    delete process.env.DNS_SERVERS;
  });

  test('jane@gmial.com: the suggestion is shown, accepted with a click, and the country is filled from the visitor IP', async () => {
    const { page, problems, validations, missing, close } = await openExample(`http://localhost:${port}`);
    try {
      await waitForText(page, 'country', 'US');
      await typeAndLeave(page, 'jane@gmial.com');
      const suggestion = page.locator('.netintel-suggestion');
      await suggestion.waitFor();
      expect(await suggestion.textContent()).toBe('jane@gmail.com');
      expect(await page.locator('.netintel-hint').getAttribute('aria-live')).toBe('polite');
      expect(await page.getAttribute('#email', 'aria-describedby')).toMatch(/netintel-hint-/);
      expect(await seriousAxeFindings(page)).toEqual([]);
      await fullPageShot(page, join(SHOTS, 'suggestion.png'));

      // Keyboard: Tab from the field reaches the suggestion; Enter accepts it.
      await page.focus('#email');
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.className')).toBe('netintel-suggestion');
      await page.keyboard.press('Enter');
      expect(await page.inputValue('#email')).toBe('jane@gmail.com');
      await waitForText(page, 'verdict', 'verdict: accept');
      expect(await page.locator('.netintel-suggestion').count()).toBe(0);

      // One request per distinct value; none for an address that cannot be valid.
      await typeAndLeave(page, 'jane@gmial.com');
      await suggestion.waitFor();
      await typeAndLeave(page, 'jane@');
      await waitForText(page, 'verdict', 'not checked: invalid_syntax');
      expect(validations.map((body) => JSON.parse(body).email)).toEqual(['jane@gmial.com', 'jane@gmail.com']);
      expect(await cspViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      expect(missing).toEqual([]);
    } finally {
      await close();
    }
  });

  test('the example page works as the repository ships it: its widget script and style sheet come from ../dist/', async () => {
    const { page, problems, missing, close } = await openExample(`http://localhost:${port}`);
    try {
      expect(missing).toEqual([]);
      // The script ran (the field has its hint) and the style sheet applies (the hint's font size).
      await page.locator('.netintel-hint').waitFor({ state: 'attached' });
      const fontSize = await page.evaluate(() => {
        const g = globalThis as unknown as {
          document: { querySelector(s: string): unknown };
          getComputedStyle(e: unknown): { fontSize: string };
        };
        return g.getComputedStyle(g.document.querySelector('.netintel-hint')).fontSize;
      });
      expect(fontSize).toBe('14px');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test('a suggestion goes as soon as the field holds another address, and a late answer for an older one is never shown', async () => {
    const { page, close } = await openExample(`http://localhost:${port}`);
    try {
      const slow = await holdFirstCheck(page, 'bob@gmial.com');
      await typeAndLeave(page, 'a@gmial.com');
      const suggestion = page.locator('.netintel-suggestion');
      await suggestion.waitFor();

      // Another address whose check does not answer: the old suggestion must not stay (a click on
      // it would put a@gmail.com over bob's address), neither while typing nor while waiting.
      await page.fill('#email', 'bob@gmial.com');
      expect(await suggestion.count()).toBe(0);
      await page.focus('#country');
      await slow.sent;
      expect(await suggestion.count()).toBe(0);
      expect(await page.inputValue('#email')).toBe('bob@gmial.com');

      // A newer address answers first; then the older one's answer (a suggestion) arrives: dropped.
      await typeAndLeave(page, 'someone@mailinator.com');
      await page.locator('.netintel-hint[data-kind="disposable"]').waitFor();
      const route = await slow.sent;
      const answered = page.waitForEvent(
        'requestfinished',
        (r) => r.postDataJSON()?.email === 'bob@gmial.com',
      );
      await route.continue();
      await answered;
      // One more check of the field's value (from the cache, after the debounce) comes after it.
      await page.focus('#email');
      await page.focus('#country');
      const seen = await waitForResults(page, 3);
      expect(seen.map((r) => r.email)).toEqual([
        'a@gmial.com',
        'someone@mailinator.com',
        'someone@mailinator.com',
      ]);
      expect(await page.getAttribute('.netintel-hint', 'data-kind')).toBe('disposable');
      expect(await suggestion.count()).toBe(0);
      expect(await page.textContent('#verdict')).not.toContain('bob');
    } finally {
      await close();
    }
  });

  test('keyboard: a suggestion reached with Tab keeps the focus when the same address is checked again', async () => {
    const { page, problems, close } = await openExample(`http://localhost:${port}`);
    try {
      await typeAndLeave(page, 'jane@gmial.com');
      const suggestion = page.locator('.netintel-suggestion');
      await suggestion.waitFor();
      await waitForResults(page, 1);
      await page.evaluate(() => {
        const g = globalThis as unknown as {
          document: { querySelector(s: string): { dataset: Record<string, string> } };
        };
        g.document.querySelector('.netintel-suggestion').dataset.first = 'yes';
      });

      // Back to the field, then Tab: leaving it checks the same value again (the cached answer).
      await page.focus('#email');
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('netintel-suggestion');
      await waitForResults(page, 2);
      expect(await focused(page)).toBe('netintel-suggestion');
      expect(await suggestion.getAttribute('data-first')).toBe('yes'); // the same button, not a new one
      await page.keyboard.press('Enter');
      expect(await page.inputValue('#email')).toBe('jane@gmail.com');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test('an API that never answers: after the default 8 s the check is a timeout, and leaving the field again asks again', async () => {
    const { page, validations, close } = await openExample(`http://localhost:${port}`, 'example/', {
      clock: true,
    });
    try {
      const hung = await holdFirstCheck(page, 'jane@gmial.com');
      await typeAndLeave(page, 'jane@gmial.com');
      await hung.sent;
      await page.clock.fastForward(8_000);
      expect(await waitForResults(page, 1)).toEqual([
        { email: 'jane@gmial.com', result: null, error: 'timeout' },
      ]);
      await waitForText(page, 'verdict', 'not checked: timeout');
      expect(await page.locator('.netintel-suggestion').count()).toBe(0);

      // The timed-out check is not kept: the same value is sent again, and this time answered.
      await page.focus('#email');
      await page.focus('#country');
      await page.locator('.netintel-suggestion').waitFor();
      const [, second] = await waitForResults(page, 2);
      expect(second?.result?.didYouMean).toBe('jane@gmail.com');
      expect(validations.map((body) => JSON.parse(body).email)).toEqual(['jane@gmial.com', 'jane@gmial.com']);
    } finally {
      await close();
    }
  });

  test('a secret key as the widget key is refused: nothing is sent, one console error says why', async () => {
    const errors: string[] = [];
    const apiCalls: string[] = [];
    let said!: Promise<unknown>;
    const { page, close } = await openExample(`http://localhost:${port}`, `example/?key=${SECRET_KEY}`, {
      before: (page) => {
        said = page.waitForEvent('console', (m) => m.type() === 'error');
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        page.on('request', (req) => {
          if (req.url().startsWith(stack.url)) apiCalls.push(req.url());
        });
      },
    });
    try {
      await said;
      expect(errors[0]).toContain('secret key');
      expect(await page.locator('.netintel-hint').count()).toBe(0);
      await typeAndLeave(page, 'jane@gmial.com');
      await page.click('button[type=submit]'); // the form still works
      expect(await page.inputValue('#email')).toBe('jane@gmial.com');
      expect(apiCalls).toEqual([]);
      expect(await results(page)).toEqual([]);
      // The page's email field and country list are both refused, with one error between them,
      // which does not repeat the key.
      expect(errors).toHaveLength(1);
      expect(errors[0]).not.toContain(SECRET_KEY);
    } finally {
      await close();
    }
  });

  test('a disposable address and a domain without mail get their warnings, announced politely', async () => {
    const { page, close } = await openExample(`http://localhost:${port}`);
    try {
      await typeAndLeave(page, 'someone@mailinator.com');
      await page.locator('.netintel-hint[data-kind="disposable"]').waitFor();
      expect(await page.textContent('.netintel-hint')).toContain('disposable');
      await typeAndLeave(page, 'someone@no-such-domain.example');
      await page.locator('.netintel-hint[data-kind="no-mail-server"]').waitFor();
      expect(await page.textContent('.netintel-hint')).toContain('does not receive email');
      await fullPageShot(page, join(SHOTS, 'no-mail-server.png'));
    } finally {
      await close();
    }
  });

  test('the script loaded twice, and enhance() called again, enhance the field once: one hint, one request per check', async () => {
    // The page as a site that includes the widget twice (a template and a tag manager) serves it.
    const { page, validations, geos, problems, close } = await openExample(
      `http://localhost:${port}`,
      'example/twice.html',
    );
    try {
      await page.locator('.netintel-hint').first().waitFor({ state: 'attached' });
      expect(await page.locator('script[src$="netintel-widget.js"]').count()).toBe(2);
      // And the ES module beside the script tags, given the same field.
      const again = await page.evaluate(
        async ([apiUrl, publishableKey]) => {
          const g = globalThis as unknown as { document: { querySelector(s: string): unknown } };
          const { enhance } = (await import('/dist/index.js' as string)) as {
            enhance(input: unknown, options: { apiUrl: string; publishableKey: string }): () => void;
          };
          return typeof enhance(g.document.querySelector('#email'), { apiUrl, publishableKey });
        },
        [stack.url, key] as const,
      );
      expect(again).toBe('function');
      expect(await page.locator('.netintel-hint').count()).toBe(1);
      // The country list is filled once too, by one request, and a call of prefillCountry() asks nothing more.
      await waitForText(page, 'country', 'US');
      const refill = await page.evaluate(
        async ([apiUrl, publishableKey]) => {
          const g = globalThis as unknown as { document: { querySelector(s: string): unknown } };
          const { prefillCountry } = (await import('/dist/index.js' as string)) as {
            prefillCountry(
              select: unknown,
              options: { apiUrl: string; publishableKey: string },
            ): Promise<unknown>;
          };
          return prefillCountry(g.document.querySelector('#country'), { apiUrl, publishableKey });
        },
        [stack.url, key] as const,
      );
      expect(refill).toBeNull();
      expect(geos).toHaveLength(1);
      expect(await page.getAttribute('#email', 'aria-describedby')).toBe('netintel-hint-1');

      await typeAndLeave(page, 'jane@gmial.com');
      await page.locator('.netintel-suggestion').waitFor();
      expect(await page.locator('.netintel-suggestion').count()).toBe(1);
      // A later check's event comes after every event of this one: the list is complete then.
      await typeAndLeave(page, 'someone@mailinator.com');
      await page.locator('.netintel-hint[data-kind="disposable"]').waitFor();
      const seen = await waitForResults(page, 2);
      expect(seen.map((r) => r.email)).toEqual(['jane@gmial.com', 'someone@mailinator.com']);
      expect(validations.map((body) => JSON.parse(body).email)).toEqual([
        'jane@gmial.com',
        'someone@mailinator.com',
      ]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test('a 200 answer that is not JSON (a proxy page) is no result: the event has result null and error invalid_response', async () => {
    const { page, close } = await openExample(`http://localhost:${port}`);
    try {
      await page.route(
        (url) => url.origin === stack.url && url.pathname === '/v1/email/validate',
        async (route) => {
          if (route.request().method() !== 'POST') return route.continue();
          const response = await route.fetch();
          await route.fulfill({
            response,
            status: 200,
            headers: { ...response.headers(), 'content-type': 'text/html' },
            body: '<html>hi</html>',
          });
        },
      );
      await typeAndLeave(page, 'jane@gmial.com');
      expect(await waitForResults(page, 1)).toEqual([
        { email: 'jane@gmial.com', result: null, error: 'invalid_response' },
      ]);
      await waitForText(page, 'verdict', 'not checked: invalid_response');
      expect(await page.locator('.netintel-suggestion').count()).toBe(0);
    } finally {
      await close();
    }
  });

  test('@netintel/client runs in the browser: geo() and validateEmail() with the publishable key, as ES modules', async () => {
    const { page, problems, close } = await openExample(`http://localhost:${port}`, 'client-page.html');
    try {
      await page.waitForFunction(() => 'clientResult' in globalThis);
      const result = (await page.evaluate('window.clientResult')) as {
        geo: { country: string | null };
        email: { didYouMean: string | null };
        refused: string;
      };
      expect(result).toMatchObject({ geo: { country: 'US' }, email: { didYouMean: 'jane@gmail.com' } });
      expect(result.refused).toBe('wrong_key_type');
      expect(await cspViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  test('from an origin the key does not list, the browser blocks the calls: no hint, no country, the form still works', async () => {
    const { page, close } = await openExample(`http://127.0.0.1:${port}`);
    try {
      await typeAndLeave(page, 'jane@gmial.com');
      await waitForText(page, 'verdict', 'not checked: network_error');
      expect(await page.locator('.netintel-suggestion').count()).toBe(0);
      expect(await page.inputValue('#country')).toBe('');
      await page.click('button[type=submit]');
      expect(await page.inputValue('#email')).toBe('jane@gmial.com');
    } finally {
      await close();
    }
  });
});
