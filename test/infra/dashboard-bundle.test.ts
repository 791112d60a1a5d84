import { beforeAll, describe, expect, test } from '@jest/globals';
import { DASHBOARD_PATH } from '../../functions/api-reference/docs-site.js';
import { buildDashboard, type DashboardBuild } from '../../web/dashboard/build.js';

// What the dashboard's build (web/dashboard/build.ts) must hold to: the first page's JavaScript
// under 100 KB gzipped (the budget; `npm run bench -- dashboard` records the figure and
// the time to first render), no inline script or style for the CSP to refuse, and every file the
// page names present. Its browser code is type-checked before Jest (scripts/test-prepare.mjs, with
// web/dashboard/tsconfig.json: the DOM library and Preact's JSX, which the root tsconfig lacks).

const FIRST_PAGE_BUDGET = 100 * 1024;

let built: DashboardBuild;
beforeAll(async () => {
  built = await buildDashboard();
}, 90_000);

const file = (path: string) => built.files.find((f) => f.path === path);

describe('the dashboard build', () => {
  test('the first page loads less than 100 KB of gzipped JavaScript', () => {
    expect(built.firstPageGzipBytes).toBeLessThan(FIRST_PAGE_BUDGET);
    expect(built.firstPageScripts[0]).toMatch(/^\/dashboard\/app-[A-Z0-9]+\.js$/);
  });

  test("the list jobs' CSV reader is a chunk of its own, not on the first page", () => {
    const reader = built.files.find((f) => f.body().includes('CSV_QUOTE_NOT_CLOSED'));
    expect(reader).toBeDefined();
    expect(built.firstPageScripts).not.toContain(reader!.path);
  });

  test('index.html names hashed files that exist, with no inline script or style', () => {
    const html = file(`${DASHBOARD_PATH}/index.html`)!.body();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    const named = [...html.matchAll(/(?:src|href)="(\/dashboard\/[^"]+)"/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThanOrEqual(2);
    for (const path of named) {
      expect(path).toMatch(/-[A-Z0-9]{8}\.(js|css)$/);
      expect(file(path)).toBeDefined();
    }
  });

  test('the page is asked for again on each visit; the hashed files are cached for good', () => {
    for (const f of built.files) {
      expect(f.cacheControl).toBe(
        f.path.endsWith('/index.html') ? 'no-cache' : 'public, max-age=31536000, immutable',
      );
    }
  });
});
