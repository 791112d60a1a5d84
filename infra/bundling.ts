import { basename, dirname } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Architecture, Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BuildOptions, buildSync } from 'esbuild';
import { LAYER_MODULES, NODE_TARGET } from './layer-modules.js';

// One definition of how every Lambda is built. The stack (lambdaCode, esbuild's JS API at synth) and
// the bundle benchmark (bench/bundles.ts) both take their options from esbuildOptions, so the sizes and
// import times we measure are those of the code we deploy.

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
  /** ESM because @middy/core 7 is ESM-only (and esbuild splits code only into ESM). */
  format: 'esm',
  /**
   * Code behind a dynamic import() goes into its own chunk (chunks/ beside index.mjs), read from disk
   * on that import's first call only: the S3 client that follows new data, the X-Ray SDK, SES. In one
   * file, esbuild inlines every import() and each cold start parses it all (BENCHMARKS.md).
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
 * The function is named by its entry's folder (functions/<name>/handler.ts) unless given.
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
    logLevel: 'warning',
  };
}

/**
 * The function's code asset, bundled at synth by esbuild in this process (no Docker; NodejsFunction
 * cannot split code: it passes esbuild one --outfile). The asset is hashed by its output, so a
 * change that leaves the bundle alike does not redeploy the function; a synth without bundling
 * (`aws:cdk:bundling-stacks`, the stack tests) skips the build.
 */
export function lambdaCode(entry: string, functionName = basename(dirname(entry))): Code {
  return Code.fromAsset(dirname(entry), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Required by the type; never used, since the local build below either succeeds or throws.
      image: DockerImage.fromRegistry('netintel-bundles-locally'),
      local: {
        tryBundle(outputDir: string): boolean {
          buildSync({ ...esbuildOptions(entry, outputDir, functionName), logLevel: 'error' });
          return true;
        },
      },
    },
  });
}
