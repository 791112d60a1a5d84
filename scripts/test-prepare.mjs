// `npm test`, before Jest: the lint (`npm run lint`), the client libraries' build and the type checks
// (the Node code, then the dashboard's browser code with the DOM library and Preact's JSX:
// web/dashboard/tsconfig.json) and the data layer (built on a
// fresh clone, about 30 s) run side by side, each on one of the machine's cores, instead of one
// after the other. Jest's global setup finds the layer built and only checks its format.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

function run(name, command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', shell: false });
    child.on('exit', (code, signal) => resolve({ name, ok: code === 0, why: signal ?? `exit ${code}` }));
    child.on('error', (error) => resolve({ name, ok: false, why: error.message }));
  });
}

/** `first`, then `second` when it passed. */
async function then(first, second) {
  const done = await first;
  return done.ok ? second() : done;
}

// Node runs each tool directly: `npx` costs a second of a core per call before the tool starts.
// (Running the type checks beside Jest instead was measured no faster: the cores are the limit.)
// The type checks use TypeScript 7 (the native compiler, `typescript-native`): 7 s instead of 19 s
// on a 2-core machine. TypeScript 5 stays for what needs its JavaScript API (openapi-typescript) and
// for the client libraries' emit (clients/build.mjs).
const tsc = join(
  dirname(createRequire(import.meta.url).resolve('typescript-native/package.json')),
  'bin/tsc',
);
// One core: the lint, then the client libraries (clients/build.mjs type-checks and builds them; the
// tests import them as packages, from their dist/ folders), then the type checks. That core is done
// about 10 s before the data layer on a fresh clone, so the lint costs no time there (it cost 4 s
// when it ran before everything). Under npm, npm_execpath is npm's own script: no second npm to find.
const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
const results = await Promise.all([
  then(run('lint', npm[0], [...npm[1], 'run', '--silent', 'lint']), () =>
    then(run('client libraries', process.execPath, ['clients/build.mjs']), () =>
      then(run('typecheck', process.execPath, [tsc, '--noEmit']), () =>
        run('dashboard typecheck', process.execPath, [tsc, '--noEmit', '-p', 'web/dashboard']),
      ),
    ),
  ),
  run('data layer', process.execPath, ['--import', 'tsx', 'scripts/ensure-data-layer.ts']),
]);
const failed = results.filter((r) => !r.ok);
for (const r of failed) console.error(`${r.name} failed (${r.why})`);
process.exit(failed.length === 0 ? 0 : 1);
