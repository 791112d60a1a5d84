import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';

// What the Chromium cases share: Debian's Chromium (CHROMIUM_PATH), launched for a container,
// a record of what a page's CSP blocks and of its console errors, and axe-core's findings.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-sync',
    ],
  });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Records, from before the page's first script, what its CSP blocks; and its errors. */
export async function watchPage(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  // Init scripts run whatever the page's CSP says: this one only records what the CSP blocks.
  await page.addInitScript(
    "window.cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sample));",
  );
  return problems;
}

/**
 * Records everything a browser shows as a failure in its console: every console error (a refused
 * request's "Failed to load resource" included), uncaught errors, requests that failed and answers
 * of 400 or more.
 */
export function watchFailures(page: Page): string[] {
  const failures: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') failures.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => failures.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) =>
    failures.push(`failed: ${r.method()} ${r.url()} (${r.failure()?.errorText ?? 'no reason'})`),
  );
  page.on('response', (r) => {
    if (r.status() >= 400) failures.push(`${r.status()}: ${r.request().method()} ${r.url()}`);
  });
  return failures;
}

export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as { cspViolations: string[] }).cspViolations);
}

/** axe-core's serious and critical findings, as "rule: selectors". */
export async function seriousAxeFindings(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<unknown> } })
      .axe;
    const doc = (globalThis as unknown as { document: unknown }).document;
    const result = (await axe.run(doc, { resultTypes: ['violations'] })) as {
      violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
    };
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.join(', ')}`);
}

/**
 * A full-page screenshot into `path`. Under a loaded 2-core machine Chromium once stalled a capture
 * past Playwright's 30 s (fonts loaded, no frame came): a capture is tried a second time before it
 * fails. A screenshot is the record of what was checked, not a check of its own.
 */
export async function fullPageShot(page: Page, path: string): Promise<void> {
  try {
    await page.screenshot({ path, fullPage: true, timeout: 20_000 });
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
    await page.screenshot({ path, fullPage: true, timeout: 20_000 });
  }
}
