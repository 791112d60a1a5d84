import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { dashboardHeaders, SITE_ALIASES } from '../functions/api-reference/docs-site.js';
import { buildDashboard, type DashboardBuild } from '../web/dashboard/build.js';
import { FakeDashboardApi } from '../web/dashboard/dev/fake-api.js';
import { median, minMax, round } from './stats.js';
import type { BenchResult } from './types.js';

// The dashboard (web/dashboard): its build, the JavaScript its first page loads, and how soon a
// browser shows the Overview. The pages are served as the local server serves them (same headers
// and CSP, gzip as API Gateway and CloudFront compress) with the dashboard API answered by the fake
// backend the browser tests use (web/dashboard/dev/fake-api.ts), so the figure is the front end's.

export const about = [
  'The dashboard built by `web/dashboard/build.ts` (esbuild, minified, hashed files). "First page" is the entry script',
  'and the chunks it imports, gzipped (level 9); the list-job CSV reader is a chunk loaded on demand and not counted.',
  'Time to first render: Chromium (headless, a fresh context each time, so nothing cached) opening `/dashboard/#/overview`',
  'on a loopback server, from navigation start until the Overview shows its figures and its 90-day chart, with the',
  'dashboard API answered by the fake backend of the browser tests. The 100 KB budget is also asserted by',
  '`test/infra/dashboard-bundle.test.ts`.',
].join('\n');

const GROUP = 'Dashboard';
const BUILDS = 5;
const LOADS = 10;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });
}

/** The built files and the fake API on one loopback origin, gzipped where the browser asks. */
async function serve(built: DashboardBuild): Promise<Server> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    if (path.startsWith('/v1/')) {
      const text = await readBody(req);
      const fake = new FakeDashboardApi();
      const answer = await fake.answer(req.method ?? 'GET', path, text ? JSON.parse(text) : undefined);
      res.writeHead(answer.status, { 'Content-Type': 'application/json' });
      res.end(answer.json === undefined ? '' : JSON.stringify(answer.json));
      return;
    }
    const file = built.files.find((f) => f.path === (SITE_ALIASES[path] ?? path));
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? gzipSync(file.body()) : file.body();
    res.writeHead(200, {
      ...dashboardHeaders(file, 'http://127.0.0.1:1'),
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function timeToOverview(url: string): Promise<number[]> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const times: number[] = [];
  try {
    for (let i = 0; i < LOADS + 1; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${url}/dashboard/#/overview`, { waitUntil: 'commit' });
      // A function, not a string: the page's CSP refuses the eval a string predicate needs.
      const handle = await page.waitForFunction(
        () => {
          const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
          return (
            doc.querySelector('.chart-canvas canvas') && doc.querySelector('.facts') && performance.now()
          );
        },
        undefined,
        { polling: 'raf', timeout: 30_000 },
      );
      const ms = (await handle.jsonValue()) as number;
      if (i > 0) times.push(ms); // the first load warms Chromium itself up
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return times;
}

export async function run(): Promise<BenchResult[]> {
  const buildMs: number[] = [];
  let built: DashboardBuild | undefined;
  for (let i = 0; i < BUILDS; i++) {
    const t = performance.now();
    built = await buildDashboard();
    buildMs.push(performance.now() - t);
  }
  const kb = round(built!.firstPageGzipBytes / 1024, 1);
  const results: BenchResult[] = [
    {
      group: GROUP,
      figure: 'build (esbuild, in memory)',
      median: round(median(buildMs), 0),
      spread: minMax(buildMs, 0),
      unit: 'ms',
      target: `< 2 s: ${median(buildMs) < 2000 ? 'met' : 'not met'}`,
      samples: BUILDS,
    },
    {
      group: GROUP,
      figure: 'first-page JavaScript, gzipped',
      median: kb,
      spread: '–',
      unit: 'KB',
      target: `< 100 KB: ${kb < 100 ? 'met' : 'not met'}`,
      samples: 1,
    },
  ];
  if (!existsSync(CHROMIUM)) {
    console.log(`  no Chromium at ${CHROMIUM}: time to first render left out`);
    return results;
  }
  const server = await serve(built!);
  try {
    const times = await timeToOverview(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    results.push({
      group: GROUP,
      figure: 'time to first render of the Overview (Chromium, cold cache)',
      median: round(median(times), 0),
      spread: minMax(times, 0),
      unit: 'ms',
      samples: times.length,
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
  return results;
}
