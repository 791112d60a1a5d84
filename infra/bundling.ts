import { basename, dirname } from 'node:path';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { LAYER_MODULES, NODE_TARGET } from './layer-modules.js';

// One definition of how every Lambda is built. The stack (NodejsFunction) and the bundle benchmark
// (bench/bundles.ts, esbuild's JS API) both derive their options from LAMBDA_BUNDLE, so the sizes
// and import times we measure are those of the code we deploy.

/**
 * The newest Node.js runtime aws-cdk-lib knows (cdk-nag L1 wants the newest). Bundles are still
 * compiled for node22 (`target`), the oldest runtime the project supports (AWS SDK releases after the
 * first week of January 2027 need Node 22).
 */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;
/** Graviton: cheaper per GB-second than x86 and nothing we bundle is native code. */
export const LAMBDA_ARCHITECTURE = Architecture.ARM_64;

export const LAMBDA_BUNDLE = {
  minify: true,
  sourceMap: true,
  /**
   * Without the sources' text the map is a third of the size. Node parses it at load under
   * --enable-source-maps (about 15 ms of every cold start, BENCHMARKS.md); stack traces still map
   * to file, line and column, which is all they print.
   */
  sourcesContent: false,
  /** ESM because @middy/core 7 is ESM-only. */
  format: 'esm',
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

/** LAMBDA_BUNDLE as NodejsFunction bundling options for the function in functions/<functionName>/. */
export function cdkBundling(functionName: string): BundlingOptions {
  return {
    minify: LAMBDA_BUNDLE.minify,
    sourceMap: LAMBDA_BUNDLE.sourceMap,
    sourcesContent: LAMBDA_BUNDLE.sourcesContent,
    format: OutputFormat.ESM,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: LAMBDA_BUNDLE.banner,
    target: LAMBDA_BUNDLE.target,
    externalModules: externalModules(functionName),
  };
}

/**
 * LAMBDA_BUNDLE as esbuild build options: the same flags NodejsFunction passes to the esbuild CLI
 * (`--bundle --platform=node --target --format --outfile=index.mjs --minify --sourcemap
 * --sources-content=false --external --banner:js --main-fields`). The function is named by its
 * entry's folder (functions/<name>/handler.ts) unless given.
 */
export function esbuildOptions(
  entry: string,
  outfile: string,
  functionName = basename(dirname(entry)),
): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: LAMBDA_BUNDLE.target,
    format: LAMBDA_BUNDLE.format,
    minify: LAMBDA_BUNDLE.minify,
    sourcemap: LAMBDA_BUNDLE.sourceMap,
    sourcesContent: LAMBDA_BUNDLE.sourcesContent,
    mainFields: [...LAMBDA_BUNDLE.mainFields],
    banner: { js: LAMBDA_BUNDLE.banner },
    external: externalModules(functionName),
    logLevel: 'warning',
  };
}
