import { build } from 'esbuild';
import * as z from 'zod';
import { esbuildOptions } from './esbuild-options.js';

// One function's bundle, built with esbuild's asynchronous API: infra/bundling.ts bundleFunctionSync
// runs this script in a child process, since CDK bundles synchronously and esbuild runs plugins only
// in its asynchronous API. Argument: {"entry", "outdir", "functionName"} as JSON.

const Job = z.object({ entry: z.string(), outdir: z.string(), functionName: z.string() });
const { entry, outdir, functionName } = Job.parse(JSON.parse(process.argv[2] ?? 'null'));
await build({ ...esbuildOptions(entry, outdir, functionName), logLevel: 'error' });
