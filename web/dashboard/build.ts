import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';
import {
  DASHBOARD_ASSET_CACHE_CONTROL,
  DASHBOARD_PAGE_CACHE_CONTROL,
  DASHBOARD_PATH,
  type SiteFile,
} from '../../functions/api-reference/docs-site.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';

// Builds the dashboard (web/dashboard/src) with esbuild, in memory: minified ES modules with hashed
// names, the style sheet, and index.html naming them (no inline script or style: the CSP allows
// neither). The local server serves the result (scripts/local/stack.ts) and the stack uploads it to
// the docs bucket under dashboard/ (infra/constructs/edge.ts). Pages load with the entry; the list
// jobs' CSV reader is a chunk loaded when a file is chosen.

const SRC = join(PROJECT_ROOT, 'web/dashboard/src');

export interface DashboardFile extends SiteFile {
  body(): string;
  cacheControl: string;
}

export interface DashboardBuild {
  files: DashboardFile[];
  /** The JavaScript the first page loads: the entry and the chunks it imports statically. */
  firstPageScripts: string[];
  /** Their gzipped size in bytes, the figure the 100 KB budget is about. */
  firstPageGzipBytes: number;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

/**
 * csv-parse's Parser is a Node stream Transform; the API's CSV reader (functions/lib/jobs/csv-input.ts)
 * only drives the parsing engine the Parser wraps (`parser.api`). In the browser `csv-parse` is
 * that engine alone, taken from the package's own source, so no stream polyfill is bundled.
 */
function csvEngineOnly(): Plugin {
  const require = createRequire(import.meta.url);
  // require() resolves the package's CommonJS build, dist/cjs/index.cjs; the engine's ES source is lib/api.
  const engine = join(dirname(require.resolve('csv-parse')), '../../lib/api/index.js');
  return {
    name: 'csv-engine-only',
    setup(b) {
      b.onResolve({ filter: /^csv-parse$/ }, () => ({ path: 'csv-parse', namespace: 'csv-engine' }));
      b.onLoad({ filter: /.*/, namespace: 'csv-engine' }, () => ({
        contents: `import { transform } from ${JSON.stringify(engine)};
export class Parser { constructor(options) { this.api = transform(options); } }`,
        loader: 'js',
        resolveDir: dirname(engine),
      }));
    },
  };
}

/**
 * The same reader and engine name Node's global `Buffer`, which browsers lack: each module of them
 * that does gets its own `import { Buffer } from 'buffer'` (the npm package), so the polyfill
 * loads with the CSV reader's chunk only and the page's globals stay as they are.
 */
function bufferForNodeModules(): Plugin {
  return {
    name: 'buffer-for-node-modules',
    setup(b) {
      b.onLoad(
        { filter: /csv-parse[\\/]lib[\\/].*\.js$|[\\/]functions[\\/]lib[\\/]jobs[\\/]csv-input\.ts$/ },
        async (args) => {
          const source = await readFile(args.path, 'utf8');
          return {
            contents: /\bBuffer\b/.test(source) ? `import { Buffer } from 'buffer';\n${source}` : source,
            loader: args.path.endsWith('.ts') ? 'ts' : 'js',
          };
        },
      );
    },
  };
}

/** Every JS file `file` loads before it runs (its static imports, transitively). */
function staticImports(meta: Metafile, file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const i of meta.outputs[file]?.imports ?? []) {
    if (i.kind === 'import-statement' && i.path.endsWith('.js')) staticImports(meta, i.path, seen);
  }
  return seen;
}

export function dashboardIndexHtml(css: string[], scripts: string[], preload: string[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>netintel dashboard</title>
<link rel="icon" type="image/svg+xml" href="/favicon.ico">
${css.map((href) => `<link rel="stylesheet" href="${href}">`).join('\n')}
${preload.map((href) => `<link rel="modulepreload" href="${href}">`).join('\n')}
${scripts.map((src) => `<script type="module" src="${src}"></script>`).join('\n')}
</head>
<body>
<div id="app"><noscript>The netintel dashboard needs JavaScript.</noscript></div>
</body>
</html>
`;
}

/**
 * esbuild's options for the browser code: also used by the tests that run the bundled CSV reader
 * (test/unit/dashboard/list-preview.test.ts), so they test what the browser runs.
 */
export function browserBuildOptions(): BuildOptions {
  return {
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome111', 'firefox113', 'safari16.4'],
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    plugins: [csvEngineOnly(), bufferForNodeModules()],
    legalComments: 'none',
    absWorkingDir: PROJECT_ROOT,
    logLevel: 'silent',
  };
}

export async function buildDashboard(): Promise<DashboardBuild> {
  const outdir = join(PROJECT_ROOT, '.dashboard-build'); // never written: write is false
  const result = await build({
    ...browserBuildOptions(),
    entryPoints: { app: join(SRC, 'main.tsx') },
    splitting: true,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: 'asset-[hash]',
    metafile: true,
    write: false,
    outdir,
  });
  const meta = result.metafile;
  const pathOf = (abs: string) => `${DASHBOARD_PATH}/${abs.slice(outdir.length + 1)}`;
  const files: DashboardFile[] = result.outputFiles.map((f) => {
    const ext = f.path.slice(f.path.lastIndexOf('.'));
    const text = f.text;
    return {
      path: pathOf(f.path),
      contentType: TYPES[ext] ?? 'application/octet-stream',
      body: () => text,
      cacheControl: DASHBOARD_ASSET_CACHE_CONTROL,
    };
  });

  const absolute = (p: string) => join(PROJECT_ROOT, p);
  const entry = Object.keys(meta.outputs).find((o) => meta.outputs[o]?.entryPoint && o.endsWith('.js'));
  if (!entry) throw new Error('the dashboard build has no entry script');
  const first = [...staticImports(meta, entry)];
  const css = meta.outputs[entry]?.cssBundle;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const firstPageScripts = first.map((o) => pathOf(absolute(o)));
  const html = dashboardIndexHtml(
    css ? [pathOf(absolute(css))] : [],
    [firstPageScripts[0]!],
    firstPageScripts.slice(1),
  );
  files.push({
    path: `${DASHBOARD_PATH}/index.html`,
    contentType: TYPES['.html']!,
    body: () => html,
    cacheControl: DASHBOARD_PAGE_CACHE_CONTROL,
  });
  const firstPageGzipBytes = firstPageScripts.reduce(
    (sum, p) => sum + gzipSync(byPath.get(p)!.body(), { level: 9 }).length,
    0,
  );
  return { files, firstPageScripts, firstPageGzipBytes };
}

/**
 * Writes the build to `outDir` as the docs bucket holds it under dashboard/ (index.html and the
 * hashed files): what the stack deploys (infra/constructs/edge.ts, through web/dashboard/write.ts).
 */
export async function writeDashboard(outDir: string): Promise<DashboardBuild> {
  const built = await buildDashboard();
  await mkdir(outDir, { recursive: true });
  for (const f of built.files) {
    await writeFile(join(outDir, f.path.slice(DASHBOARD_PATH.length + 1)), f.body());
  }
  return built;
}
