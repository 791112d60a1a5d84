import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { accountStore } from '../../functions/lib/aws/services.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import {
  cspViolations,
  haveChromium,
  launchChromium,
  seriousAxeFindings,
  watchPage,
} from '../support/chromium.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { leftOut } from '../support/left-out.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// The signup-form widget (clients/widget) in Chromium: its example page, served from
// http://localhost:<port> with a strict CSP and a publishable key for that origin, suggests the
// fix of a typo, takes it on a click, and fills the country from GET /v1/geo; the same page from
// an origin the key does not list gets nothing (the browser blocks the calls) and still submits.

if (!haveChromium) leftOut('the widget browser test: no Chromium (apt-get install chromium)');
const maybe = haveChromium ? describe : describe.skip;

const EXAMPLE = join(PROJECT_ROOT, 'clients/widget/example');
const DIST = join(PROJECT_ROOT, 'clients/widget/dist');
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

let stack: TestStack;
let dns: DnsServer;
let browser: Browser;
let pages: Server;

/** The example page with this stack's address and `key`, and the widget's built files. */
function examplePageServer(apiUrl: string, key: () => string): Promise<Server> {
  const server = createServer(async (req, res) => {
    let name = new URL(req.url ?? '/', 'http://x').pathname.slice(1) || 'index.html';
    let dir = name === 'netintel-widget.js' || name === 'widget.css' ? DIST : EXAMPLE;
    // The TypeScript client's ES modules, as a page without a bundler imports them.
    if (name.startsWith('client/')) [dir, name] = [CLIENT_DIST, name.slice('client/'.length)];
    try {
      let body =
        name === 'client-page.html'
          ? CLIENT_PAGE
          : name === 'client-page.js'
            ? CLIENT_SCRIPT.replace('API_URL', apiUrl).replace('PUBLISHABLE_KEY', key())
            : await readFile(join(dir, name.replace(/[^\w.-]/g, '')), 'utf8');
      if (name === 'index.html') {
        body = body.replace('http://localhost:8787', apiUrl).replace('YOUR_PUBLISHABLE_KEY', key());
      }
      res.writeHead(200, {
        'Content-Type': `${TYPES[extname(name)] ?? 'text/plain'}; charset=utf-8`,
        'Content-Security-Policy': `default-src 'self'; connect-src ${apiUrl}; base-uri 'none'; form-action 'self'`,
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function openExample(origin: string, path = 'index.html') {
  const context = await browser.newContext({ viewport: { width: 375, height: 700 } });
  const page = await context.newPage();
  const problems = await watchPage(page);
  // The visitor comes from 8.8.8.8, as a proxy in front of the API would say (the local stack
  // trusts X-Forwarded-For here): loopback has no country to fill in.
  await page.route(
    (url) => url.origin === stack.url && url.pathname === '/v1/geo',
    async (route) =>
      route.continue({ headers: { ...route.request().headers(), 'x-forwarded-for': '8.8.8.8' } }),
  );
  const validations: string[] = [];
  page.on('request', (req) => {
    if (req.url().endsWith('/v1/email/validate') && req.method() === 'POST')
      validations.push(req.postData() ?? '');
  });
  await page.goto(`${origin}/${path}`);
  return { page, problems, validations, close: () => context.close() };
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
    const { page, problems, validations, close } = await openExample(`http://localhost:${port}`);
    try {
      await waitForText(page, 'country', 'US');
      await typeAndLeave(page, 'jane@gmial.com');
      const suggestion = page.locator('.netintel-suggestion');
      await suggestion.waitFor();
      expect(await suggestion.textContent()).toBe('jane@gmail.com');
      expect(await page.locator('.netintel-hint').getAttribute('aria-live')).toBe('polite');
      expect(await page.getAttribute('#email', 'aria-describedby')).toMatch(/netintel-hint-/);
      expect(await seriousAxeFindings(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, 'suggestion.png'), fullPage: true });

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
      await page.screenshot({ path: join(SHOTS, 'no-mail-server.png'), fullPage: true });
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
