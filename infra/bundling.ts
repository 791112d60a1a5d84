import { spawnSync } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Architecture, Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { PROJECT_ROOT } from './project-root.js';

// The Lambda runtime, and each function's code asset built with infra/esbuild-options.ts, the one
// definition of how every Lambda is built.
export * from './esbuild-options.js';

/**
 * The newest Node.js runtime aws-cdk-lib knows (cdk-nag L1 wants the newest). Bundles are still
 * compiled for node22 (`target`), the oldest runtime the project supports (AWS SDK releases after the
 * first week of January 2027 need Node 22).
 */
export const LAMBDA_RUNTIME = Runtime.NODEJS_24_X;
/** Graviton: cheaper per GB-second than x86 and nothing we bundle is native code. */
export const LAMBDA_ARCHITECTURE = Architecture.ARM_64;

/**
 * The function's code asset, bundled at synth by esbuild on this machine (no Docker; NodejsFunction
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
          bundleFunctionSync(entry, outputDir, functionName);
          return true;
        },
      },
    },
  });
}

/** The script bundleFunctionSync runs: esbuild's asynchronous API, which plugins need. */
const BUNDLE_SCRIPT = join(PROJECT_ROOT, 'infra', 'bundle-function.ts');

/**
 * Bundles the function at `entry` into `outdir`, synchronously as CDK's local bundling must. esbuild
 * runs plugins (esbuild-options.ts) in its asynchronous API only, so the build runs in a child Node
 * process (infra/bundle-function.ts, through tsx, as `cdk` runs the app); a failed build throws
 * with esbuild's messages.
 */
export function bundleFunctionSync(
  entry: string,
  outdir: string,
  functionName = basename(dirname(entry)),
): void {
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', BUNDLE_SCRIPT, JSON.stringify({ entry, outdir, functionName })],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' },
  );
  if (child.error) throw child.error;
  if (child.status !== 0)
    throw new Error(`bundling ${functionName} failed (exit ${child.status}):\n${child.stderr.trim()}`);
}
