import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Browser, chromium } from 'playwright-core';
import { accountStore } from '../../functions/lib/aws/services.js';
import { API_TAGS, ROUTES } from '../../functions/routes.js';
import { leftOut } from '../support/left-out.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// A real browser (Debian's Chromium driven by playwright-core) loads pages from an allowed and a
// disallowed origin and calls the two publishable routes. Left out, with a note, where Chromium is
// not installed (.ci/run installs it).
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) leftOut(`the browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium)`);
const maybe = haveChromium ? describe : describe.skip;

let stack: TestStack;
let browser: Browser;
let allowedPage: Server;
let otherPage: Server;

/** Serves a page that calls the two publishable routes with whatever key `page.key` holds. */
function pageServer(apiUrl: string): Promise<Server & { key?: string }> {
  const server: Server & { key?: string } = createServer((_req, res) => {
    const html = `<!doctype html><html><body><script>
  const API = ${JSON.stringify(apiUrl)}, KEY = ${JSON.stringify(server.key ?? '')};
  async function call(path, init) {
    try {
      const r = await fetch(API + path, init);
      return { status: r.status, body: await r.json() };
    } catch (e) {
      return { blocked: String(e) };
    }
  }
  (async () => {
    window.result = {
      geo: await call('/v1/geo', { headers: { 'X-Api-Key': KEY } }),
      validate: await call('/v1/email/validate', {
        method: 'POST',
        headers: { 'X-Api-Key': KEY, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'someone@gmail.com' }),
      }),
    };
  })();
  </script></body></html>`;
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(html);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (s: Server) => (s.address() as AddressInfo).port;

maybe('a browser calling the publishable routes', () => {
  beforeAll(async () => {
    stack = await startTestStack();
    // Two page servers; the key allows only the first one's origin.
    allowedPage = await pageServer(stack.url);
    otherPage = await pageServer(stack.url);
    const created = await accountStore(stack.services).createKey(stack.dev.accountId, 'publishable', [
      `http://127.0.0.1:${portOf(allowedPage)}`,
    ]);
    (allowedPage as Server & { key?: string }).key = created.key;
    (otherPage as Server & { key?: string }).key = created.key;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    allowedPage?.close();
    otherPage?.close();
    await stack?.close();
  });

  async function resultFrom(port: number) {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(
      () => (globalThis as unknown as { result?: unknown }).result !== undefined,
      undefined,
      { timeout: 20_000 },
    );
    const result = await page.evaluate(() => (globalThis as unknown as { result: unknown }).result);
    await page.close();
    return result as Record<string, { status?: number; body?: Record<string, unknown>; blocked?: string }>;
  }

  test('from an allowed origin, GET /v1/geo and POST /v1/email/validate succeed', async () => {
    const result = await resultFrom(portOf(allowedPage));
    expect(result.geo?.status).toBe(200);
    expect(result.geo?.body).toHaveProperty('ip');
    expect(result.validate?.status).toBe(200);
    expect(result.validate?.body).toMatchObject({ email: 'someone@gmail.com', syntaxValid: true });
  });

  test('from a disallowed origin, the browser blocks both calls', async () => {
    const result = await resultFrom(portOf(otherPage));
    expect(result.geo?.blocked).toContain('Failed to fetch');
    expect(result.validate?.blocked).toContain('Failed to fetch');
  });

  test('/ opens the API reference: every section and operation renders, with nothing its CSP blocks', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    // Playwright's init scripts run whatever the page's CSP says: this one only records what it blocks.
    await page.addInitScript(
      "window.cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.sample));",
    );
    await page.goto(`${stack.url}/`);
    expect(new URL(page.url()).pathname).toBe('/docs');
    await page.waitForSelector('.opblock-tag', { timeout: 20_000 });
    const tags = await page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));
    expect(tags).toEqual([...API_TAGS]);
    const operations = await page.$$eval('.opblock', (els) => els.length);
    expect(operations).toBe(ROUTES.length);
    // An operation opens on its samples and its real example.
    await page.click('#operations-IP_lookup-lookup-ip .opblock-summary');
    await page.waitForSelector('#operations-IP_lookup-lookup-ip .response .microlight', { timeout: 10_000 });
    const text = await page.textContent('#operations-IP_lookup-lookup-ip');
    expect(text).toContain('curl "$NETINTEL_URL/v1/lookup/8.8.8.8?include=hostname"');
    expect(text).toContain('Mountain View');
    const shot = await page.locator('#operations-IP_lookup-lookup-ip').screenshot();
    expect(shot.byteLength).toBeGreaterThan(20_000);
    expect(
      await page.evaluate(() => (globalThis as unknown as { cspViolations: string[] }).cspViolations),
    ).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 180_000);
});
