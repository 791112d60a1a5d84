// Builds the client libraries into their dist/ folders, so they are importable as packages right
// after `npm ci` (the root `prepare` script) and before each `npm test` (scripts/test-prepare.mjs):
// - @netintel/client: tsc emits ES modules, one per source file (bundlers keep only what is
//   imported), with .d.ts; its tsconfig has the DOM library and no Node types, so nothing
//   Node-only reaches browser code.
// - @netintel/widget: esbuild bundles the script-tag build (netintel-widget.js, minified) and the
//   ES module (index.js); tsc emits its .d.ts; the style sheet is copied.
// Plain JavaScript, run by Node alone: it must work before anything else is built.
import { spawn } from 'node:child_process';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function run(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, ...args], { stdio: 'inherit' });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`tsc ${args.join(' ')}: exit ${code}`)),
    );
    child.on('error', reject);
  });
}

async function buildClient() {
  const root = join(here, 'typescript');
  await rm(join(root, 'dist'), { recursive: true, force: true });
  await run(['-p', join(root, 'tsconfig.json')]);
}

async function buildWidget() {
  const root = join(here, 'widget');
  const dist = join(root, 'dist');
  await rm(dist, { recursive: true, force: true });
  await mkdir(dist, { recursive: true });
  const common = {
    bundle: true,
    target: 'es2020',
    platform: 'browser',
    legalComments: 'none',
    logLevel: 'warning',
  };
  await Promise.all([
    build({
      ...common,
      entryPoints: [join(root, 'src/auto.ts')],
      outfile: join(dist, 'netintel-widget.js'),
      format: 'iife',
      minify: true,
    }),
    build({
      ...common,
      entryPoints: [join(root, 'src/index.ts')],
      outfile: join(dist, 'index.js'),
      format: 'esm',
    }),
    copyFile(join(root, 'src/widget.css'), join(dist, 'widget.css')),
    run(['-p', join(root, 'tsconfig.json')]),
  ]);
}

await Promise.all([buildClient(), buildWidget()]);
