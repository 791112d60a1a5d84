import { build } from 'esbuild';
import pLimit from 'p-limit';
import * as z from 'zod';
import { esbuildOptions } from './esbuild-options.js';

// Functions' bundles, built with esbuild's asynchronous API: infra/bundling.ts runs this script in a
// child process, since CDK bundles synchronously and esbuild runs plugins only in its asynchronous
// API. Argument: a JSON array of {"entry", "outdir", "functionName"}. The builds run a few at a time
// (esbuild spreads each over the cores); the exit code is 1 when any of them failed, with esbuild's
// messages on stderr.

const Jobs = z.array(z.object({ entry: z.string(), outdir: z.string(), functionName: z.string() }));
const jobs = Jobs.parse(JSON.parse(process.argv[2] ?? 'null'));

/** Builds at once: enough to keep esbuild busy while plugin callbacks run on this thread. */
const AT_ONCE = 4;

const outcomes = await pLimit(AT_ONCE).map(jobs, ({ entry, outdir, functionName }) =>
  build({ ...esbuildOptions(entry, outdir, functionName), logLevel: 'error' }).then(
    () => true,
    // esbuild has printed its messages.
    () => false,
  ),
);
if (outcomes.includes(false)) process.exitCode = 1;
