import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Architecture, Code, Runtime } from 'aws-cdk-lib/aws-lambda';
import { handlerEntry } from '../functions/routes.js';
import { processIsRunning } from './process-running.js';
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
          stackBundles.bundle({ entry, outdir: outputDir, functionName });
          return true;
        },
      },
    },
  });
}

/** One function's build: its entry, where its bundle goes, its name (esbuild-options.ts). */
export interface BundleJob {
  entry: string;
  outdir: string;
  functionName: string;
}

/** The script bundleFunctionsSync runs: esbuild's asynchronous API, which plugins need. */
const BUNDLE_SCRIPT = join(PROJECT_ROOT, 'infra', 'bundle-functions.ts');

/**
 * Bundles each job's function into its `outdir`, synchronously as CDK's local bundling must. esbuild
 * runs plugins (esbuild-options.ts) in its asynchronous API only, so the builds run in one child
 * Node process (infra/bundle-functions.ts, through tsx, as `cdk` runs the app); a failed build
 * throws with esbuild's messages.
 */
export function bundleFunctionsSync(jobs: readonly BundleJob[]): void {
  const child = spawnSync(process.execPath, ['--import', 'tsx', BUNDLE_SCRIPT, JSON.stringify(jobs)], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  if (child.error) throw child.error;
  if (child.status !== 0) {
    const names = jobs.map((job) => job.functionName).join(', ');
    throw new Error(`bundling ${names} failed (exit ${child.status}):\n${child.stderr.trim()}`);
  }
}

/**
 * The stack's bundles. CDK asks for one function's bundle at a time, as it creates each function;
 * a child process for each would start Node and tsx sixty times. So the first request builds every
 * function of `functions/` (each folder with a handler.ts) in one child, into a directory of its own
 * (batchDirectory), and every request copies its bundle from there. A function outside that batch is
 * built on its own.
 */
export class FunctionBundles {
  private built: Map<string, string> | undefined;

  constructor(
    private readonly batch: () => BundleJob[],
    private readonly run: (jobs: readonly BundleJob[]) => void = bundleFunctionsSync,
  ) {}

  bundle(job: BundleJob): void {
    this.built ??= this.buildBatch();
    const ready = this.built.get(keyOf(job));
    if (ready) cpSync(ready, job.outdir, { recursive: true });
    else this.run([job]);
  }

  private buildBatch(): Map<string, string> {
    const jobs = this.batch();
    this.run(jobs);
    return new Map(jobs.map((job) => [keyOf(job), job.outdir]));
  }
}

function keyOf(job: Pick<BundleJob, 'entry' | 'functionName'>): string {
  return `${resolve(job.entry)}\n${job.functionName}`;
}

/** Every function of functions/ (a folder with a handler.ts), to be built into `dir`. */
export function allFunctionJobs(dir: string): BundleJob[] {
  const root = join(PROJECT_ROOT, 'functions');
  return readdirSync(root, { withFileTypes: true })
    .map((e) => ({ name: e.name, entry: join(PROJECT_ROOT, handlerEntry(e.name)), folder: e.isDirectory() }))
    .filter(({ entry, folder }) => folder && existsSync(entry))
    .map(({ name, entry }) => ({ entry, outdir: join(dir, name), functionName: name }));
}

const BATCH_PREFIX = 'netintel-bundles-';
/** A batch directory's name, with the id of the process that made it. */
const BATCH_NAME = new RegExp(`^${BATCH_PREFIX}(\\d+)-`);

/**
 * A new directory under `root` for this process's batch (tens of MB), removed when the process
 * exits. A synth stopped by a signal (Ctrl-C, a CI timeout, SIGKILL) never runs the exit handler,
 * so the directory is named by its process id, and the directories of processes no longer running
 * are removed first: a stopped synth leaves its batch behind until the next synth on the machine.
 */
export function batchDirectory(
  root = tmpdir(),
  isRunning: (pid: number) => boolean = processIsRunning,
): string {
  for (const name of readdirSync(root)) {
    const pid = BATCH_NAME.exec(name)?.[1];
    if (pid && Number(pid) !== process.pid && !isRunning(Number(pid))) {
      rmSync(join(root, name), { recursive: true, force: true });
    }
  }
  const dir = mkdtempSync(join(root, `${BATCH_PREFIX}${process.pid}-`));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const stackBundles = new FunctionBundles(() => allFunctionJobs(batchDirectory()));
