import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { BlockList, isIPv6 } from 'node:net';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { CONTRACTS } from '../../../functions/contracts.js';
import { GATEWAY_RESPONSES } from '../../../functions/lib/gateway/gateway-responses.js';
import { EXPOSED_HEADERS } from '../../../functions/lib/http/cors.js';
import { MonthlyLimitError, RateLimitError } from '../../../functions/lib/http/errors.js';
import { TEST_NETWORKS } from '../../../functions/lib/test-mode/tables.js';
import { KEY_ROUTES, ROUTES } from '../../../functions/routes.js';
import { contractsSource } from '../../../scripts/docs/contracts-source.js';
import { generatedFiles } from '../../../scripts/docs/generate.js';

// The documentation as a reader finds it (issue #34): a short README for a first visit, the rest
// under docs/ and in CONTRIBUTING.md. The configuration and error references, and the map of the
// route contracts (functions/contracts.ts), are generated from the code (scripts/docs/generate.ts),
// so they fail here when the code moves on without them, and every link between the documents leads
// to a file and a heading that exist.

const ROOT = process.cwd();
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The documents written by hand or generated: the README, CONTRIBUTING.md and docs/*.md. */
const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The text without fenced code blocks, where a `#` line is no heading. */
function withoutCodeBlocks(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** The text without code, where brackets are not links and figures are not claims. */
function prose(text: string): string {
  return withoutCodeBlocks(text).replace(/`[^`\n]*`/g, '');
}

/** Every anchor of a Markdown file, duplicates numbered as GitHub numbers them. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of withoutCodeBlocks(text).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

/** Links of `file` to files of the repository that do not exist, or to headings they do not have. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(read(file)).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^(?:[a-z]+:|\/)/i.test(target!)) continue;
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = path === '' ? file : normalize(join(dirname(file), path));
    if (!existsSync(join(ROOT, resolved))) {
      broken.push(`${file}: ${target} (no file ${resolved})`);
    } else if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor)) {
      broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`);
    }
  }
  return broken;
}

describe('documentation', () => {
  test.each(Object.entries(generatedFiles(CONTRACTS)))(
    '%s is what npm run docs:generate writes',
    (path, render) => {
      const committed = existsSync(join(ROOT, path)) ? read(path) : '';
      if (committed !== render()) throw new Error(`${path} is out of date: run npm run docs:generate`);
    },
  );

  test('the contract map imports in the order biome sorts, and maps in the route table order', () => {
    const text = contractsSource([{ name: 'jobs-create' }, { name: 'jobs' }, { name: 'data' }]);
    expect(text.match(/^import .*$/gm)).toEqual([
      "import type { RouteContracts } from './api-reference/route-contracts.js';",
      "import { contract as data } from './data/contract.js';",
      "import { contract as jobs } from './jobs/contract.js';",
      "import { contract as jobsCreate } from './jobs-create/contract.js';",
    ]);
    expect(text).toContain("= {\n  'jobs-create': jobsCreate,\n  jobs: jobs,\n  data: data,\n};\n");
  });

  test('README.md has at most 250 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });

  test('README.md states no measured times: they belong in BENCHMARKS.md', () => {
    const durations = prose(read('README.md')).match(/\b\d[\d.,]*\s?(?:µs|ms|s|seconds|minutes)\b/g) ?? [];
    expect(durations).toEqual([]);
  });

  test('every link between the documents leads to a file and a heading that exist', () => {
    expect(DOCUMENTS.flatMap(brokenLinks)).toEqual([]);
  });

  test("docs/clients.md's tour of the client is the file the type check compiles", () => {
    // Its one TypeScript block, as test/fixtures/docs/clients-tour.ts holds it below its first line.
    const block = /```ts\n(import \{ readFile[\s\S]*?)```/.exec(read('docs/clients.md'))?.[1];
    const fixture = read('test/fixtures/docs/clients-tour.ts');
    expect(block).toBe(fixture.slice(fixture.indexOf('\n') + 1));
  });

  test("docs/clients.md's risk check uses an address live data locates, not a test-only range", () => {
    // A documentation range (RFC 5737, RFC 3849) has a location only in test mode: with a live key
    // the tour's call would answer 422 location_unavailable.
    const ip = /riskCheck\(\{[^}]*\bip: '([^']+)'/.exec(read('docs/clients.md'))?.[1];
    expect(ip).toBeDefined();
    const testOnly = new BlockList();
    for (const { prefix } of TEST_NETWORKS) {
      const [network, bits] = prefix.split('/') as [string, string];
      testOnly.addSubnet(network, Number(bits), isIPv6(network) ? 'ipv6' : 'ipv4');
    }
    expect(testOnly.check(ip!, isIPv6(ip!) ? 'ipv6' : 'ipv4')).toBe(false);
  });

  test('docs/clients.md says which client methods a test key cannot call', () => {
    const text = read('docs/clients.md');
    expect(text).toContain('live_key_required');
    for (const method of ['setEmailRules', 'setGeofeed', 'deleteGeofeed', 'setTravel']) {
      expect(text).toMatch(new RegExp(`\\brules\\.${method}\\(\\)[^\\n]*(?:\\n[^\\n]*)?live_key_required`));
    }
  });

  test('docs/operations.md tells the three 429s apart by what each carries', () => {
    const text = read('docs/operations.md');
    // API Gateway's usage plan: its own body, no Retry-After, no X-RateLimit-*.
    const throttled = GATEWAY_RESPONSES.find((r) => r.type === 'THROTTLED')!;
    const { error, message } = JSON.parse(throttled.template) as { error: string; message: string };
    expect(text).toContain(`\`${error}\` with neither, message \`${message}\``);
    expect(Object.keys(throttled.headers).filter((h) => /^(X-RateLimit|Retry-After)/i.test(h))).toEqual([]);
    // The counters' own: the minute's with Retry-After (the X-RateLimit-* come from the pipeline),
    // the month's with X-Monthly-Remaining and no Retry-After.
    expect(Object.keys(new RateLimitError(5).headers)).toEqual(['Retry-After']);
    expect(Object.keys(new MonthlyLimitError('m', 2).headers)).toEqual(['X-Monthly-Remaining']);
    expect(text).toContain(
      '`rate_limit_exceeded` with `X-RateLimit-*` (`X-RateLimit-Remaining: 0`) and `Retry-After`',
    );
    expect(text).toContain(
      '`monthly_limit_exceeded`: the monthly cap, from the counters. It has no `X-RateLimit-*`',
    );
  });

  test("every key route, and the API's description, is a row of docs/api.md's endpoints table", () => {
    const section = /^## Endpoints\n([\s\S]*?)\n(?!\|)/m.exec(read('docs/api.md'))?.[1] ?? '';
    const listed = new Set<string>();
    for (const [, cell] of section.matchAll(/^\| [^|]+ \| ([^|]+) \|/gm)) {
      // `PUT`, `GET`, `DELETE /v1/account/geofeed`: the methods before a path share it.
      let methods: string[] = [];
      for (const [, token] of cell!.matchAll(/`([^`]+)`/g)) {
        const [method, path] = token!.split(' ') as [string, string | undefined];
        methods.push(method);
        if (path === undefined) continue;
        for (const m of methods) listed.add(`${m} ${path}`);
        methods = [];
      }
    }
    const openapi = ROUTES.find((r) => r.name === 'openapi')!;
    const routes = [...KEY_ROUTES, openapi].map((r) => `${r.method} ${r.path}`);
    expect(routes.filter((r) => !listed.has(r))).toEqual([]);
  });

  test('CONTRIBUTING.md names every file npm run docs:generate writes, and every document of docs/', () => {
    const text = read('CONTRIBUTING.md');
    const section = (heading: string) =>
      new RegExp(`^## ${heading}\\n([\\s\\S]*?)(?=^## )`, 'm').exec(`${text}\n## `)?.[1] ?? '';
    const generated = [...Object.keys(generatedFiles(CONTRACTS)), 'clients/typescript/src/openapi.ts'];
    const table = section('Generated files');
    expect(generated.filter((path) => !table.includes(`\`${path}\``))).toEqual([]);
    const adding = section('Adding a route');
    expect(generated.filter((path) => !adding.includes(path))).toEqual([]);
    const generatedDocs = generated.filter((path) => path.startsWith('docs/'));
    const words = ['no', 'one', 'two', 'three', 'four', 'five', 'six'];
    expect(text).toContain(`${words[generatedDocs.length]} files there are generated`);
    const docs = section('Documentation');
    const unlisted = DOCUMENTS.filter((d) => d.startsWith('docs/')).filter((d) => !docs.includes(`](${d})`));
    expect(unlisted).toEqual([]);
  });

  test('docs/dashboard.md states no measured size of the dashboard: it belongs in BENCHMARKS.md', () => {
    // The budget (100 KB) is a rule, not a measurement; any other size would drift from the build.
    const sizes = prose(read('docs/dashboard.md')).match(/\b\d[\d.,]*\s?(?:KB|kB|MB|bytes)\b/g) ?? [];
    expect(sizes.filter((size) => size !== '100 KB')).toEqual([]);
    expect(read('docs/dashboard.md')).toContain('(../BENCHMARKS.md#dashboard)');
  });

  test('CONTRIBUTING.md names every package npm ci warns about: engines above Node 20, install scripts', () => {
    const setup = /^## Setup and Node\.js versions\n([\s\S]*?)^## /m.exec(read('CONTRIBUTING.md'))?.[1] ?? '';
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { version?: string; engines?: { node?: string }; hasInstallScript?: boolean }>;
    };
    const named: string[] = [];
    for (const [path, pkg] of Object.entries(lock.packages)) {
      const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
      if (!path.includes('node_modules/')) continue;
      // A lower bound above 20 (">=22", ">=24.0.0"): npm ci's EBADENGINE on Node 20.
      const needs = /^>=\s*(\d+)/.exec(pkg.engines?.node ?? '')?.[1];
      if ((needs && Number(needs) > 20) || pkg.hasInstallScript) named.push(name);
    }
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !setup.includes(`\`${name}`))).toEqual([]);
  });

  test("docs/api.md names the headers browser pages may read: the CORS answers' Access-Control-Expose-Headers", () => {
    const sentence = /Browser routes expose ([^.]*?) to the page \(`Access-Control-Expose-Headers`\)/.exec(
      read('docs/api.md').replace(/\s+/g, ' '),
    )?.[1];
    const named = [...(sentence ?? '').matchAll(/`([^`]+)`/g)].flatMap(([, name]) =>
      name === 'X-RateLimit-*'
        ? ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']
        : [name!],
    );
    expect(named.sort()).toEqual(EXPOSED_HEADERS.split(', ').sort());
  });

  test("README.md's Try it needs no file the repository lacks: it writes the CSV it sends", () => {
    const block = /^### Try it\n+```bash\n([\s\S]*?)^```/m.exec(read('README.md'))?.[1] ?? '';
    const lines = block.split('\n');
    const used = lines.flatMap((line, at) =>
      [...line.matchAll(/(?:submit |=@)([\w./-]+\.csv)\b/g)].map(([, file]) => ({ file: file!, at })),
    );
    expect(used.length).toBeGreaterThan(0);
    for (const { file, at } of used) {
      const written = lines.slice(0, at).some((line) => line.includes(`> ${file}`));
      expect([file, written || existsSync(join(ROOT, file))]).toEqual([file, true]);
    }
  });
});
