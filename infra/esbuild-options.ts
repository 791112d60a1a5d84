import { basename, dirname, resolve } from 'node:path';
import type { BuildOptions } from 'esbuild';
import { LAYER_MODULES, NODE_TARGET } from './layer-modules.js';
import { oneStaticChunk } from './one-static-chunk.js';

// How every Lambda is built, free of aws-cdk-lib: the stack (infra/bundling.ts, through
// infra/bundle-functions.ts), the bundle benchmark (bench/bundles.ts) and the bundle tests all take
// their options from esbuildOptions, so the sizes and import times we measure are those of the code
// we deploy.

export const LAMBDA_BUNDLE = {
  minify: true,
  sourceMap: true,
  /**
   * Without the sources' text the map is a third of the size. Node parses it at load under
   * --enable-source-maps (about 15 ms of every cold start, BENCHMARKS.md); stack traces still map
   * to file, line and column, which is all they print.
   */
  sourcesContent: false,
  /** ESM because @middy/core 7 is ESM-only (and esbuild splits code only into ESM). */
  format: 'esm',
  /**
   * Code behind a dynamic import() goes into its own chunk (chunks/ beside index.mjs), read from disk
   * on that import's first call only: the S3 client that follows new data, the X-Ray SDK, SES. In one
   * file, esbuild inlines every import() and each cold start parses it all (BENCHMARKS.md). What
   * the cold start loads is kept in one chunk (one-static-chunk.ts).
   */
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  mainFields: ['module', 'main'],
  /**
   * CommonJS dependencies inside an ESM bundle still call require(), which ESM does not define:
   * the banner makes one from import.meta.url.
   */
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  target: NODE_TARGET,
  /**
   * Bundled, the SDK clients on the hot path (DynamoDB, S3, SQS) load in one file: two to four
   * times faster than the runtime's copy spread over hundreds of files (BENCHMARKS.md). Left to
   * the runtime's SDK by default: clients used only on rare paths (SES for usage notices,
   * CloudFront for custom hostnames); BUNDLED_PER_FUNCTION takes one back where it matters. The
   * LAYER_MODULES (date-holidays: 1.4 MB, mostly calendar data) ship in the data layer under
   * nodejs/node_modules and load on the first holiday answer.
   */
  externalModules: ['@aws-sdk/client-sesv2', '@aws-sdk/client-cloudfront', ...LAYER_MODULES],
} as const;

/**
 * import()s awaited while a function's modules load (functions/lib/aws/tracing.ts loads the Tracer
 * at the top level where tracing is on): one-static-chunk.ts leaves them as esbuild splits them.
 */
export const AWAITED_AT_LOAD: readonly string[] = ['@aws-lambda-powertools/tracer'];

/**
 * Modules a function bundles although LAMBDA_BUNDLE leaves them to the runtime. The custom-hostname
 * verifier calls CloudFront's distribution-tenant commands (CloudFront SaaS Manager, 2025): the
 * runtime's SDK version floats with the runtime's updates and may predate them, so the verifier
 * ships the pinned client (package-lock.json). It is the only function that loads it.
 */
export const BUNDLED_PER_FUNCTION: Readonly<Record<string, readonly string[]>> = {
  'domain-verifier': ['@aws-sdk/client-cloudfront'],
};

/** The modules `functionName` leaves to the Lambda runtime (or the data layer). */
export function externalModules(functionName: string): string[] {
  const bundled = BUNDLED_PER_FUNCTION[functionName] ?? [];
  return LAMBDA_BUNDLE.externalModules.filter((m) => !bundled.includes(m));
}

/**
 * LAMBDA_BUNDLE as esbuild build options for the function in functions/<functionName>/: its entry
 * becomes `outdir/index.mjs` (the handler `index.handler`), its lazy parts `outdir/chunks/*.mjs`.
 * The function is named by its entry's folder (functions/<name>/handler.ts) unless given. The
 * options carry a plugin: build them with esbuild's asynchronous API (`build`), never `buildSync`.
 * One entry per build: the plugin is the entry's.
 */
export function esbuildOptions(
  entry: string,
  outdir: string,
  functionName = basename(dirname(entry)),
): BuildOptions {
  return {
    entryPoints: { index: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: LAMBDA_BUNDLE.splitting,
    chunkNames: LAMBDA_BUNDLE.chunkNames,
    platform: 'node',
    target: LAMBDA_BUNDLE.target,
    format: LAMBDA_BUNDLE.format,
    minify: LAMBDA_BUNDLE.minify,
    sourcemap: LAMBDA_BUNDLE.sourceMap,
    sourcesContent: LAMBDA_BUNDLE.sourcesContent,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: { js: LAMBDA_BUNDLE.banner },
    external: externalModules(functionName),
    plugins: [oneStaticChunk(resolve(entry), AWAITED_AT_LOAD)],
    logLevel: 'warning',
  };
}
