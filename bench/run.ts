import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../infra/project-root.js';
import type { BenchResult } from './types.js';

// `npm run bench [-- NAME ...]`: runs every benchmark module (or the named ones), each in a process
// of its own, stores the figures in bench/results.json and rewrites BENCHMARKS.md from it.

const MODULES = [
  'bundles',
  'pipeline',
  'auth',
  'email',
  'email-http',
  'ip',
  'account-geofeed',
  'ip-sources',
  'ip-http',
  'throughput',
  'security',
  'signup',
  'jobs',
  'webhooks',
  'test-mode',
  'hostile-bodies',
  'memory',
  'dashboard',
  'clients',
  'scale',
  'cost',
] as const;

interface Stored {
  module: string;
  date: string;
  machine: string;
  /** How the module measures, from its `about` export: printed under the section heading. */
  about?: string;
  results: BenchResult[];
}

function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${cpu}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`;
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  return String(Math.round(n * 100) / 100);
}

function render(stored: Stored[]): string {
  const lines = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (all modules) or `npm run bench -- MODULE...`; each section says when and where its',
    'figures were measured. Medians of repeated samples; ratios are of figures measured in the same run.',
    '',
  ];
  for (const s of stored) {
    lines.push(
      `## ${s.module}`,
      '',
      `Measured ${s.date} on ${s.machine}. Command: \`npm run bench -- ${s.module}\`.`,
      '',
    );
    if (s.about) lines.push(s.about, '');
    const groups = [...new Set(s.results.map((r) => r.group))];
    for (const g of groups) {
      lines.push(
        `### ${g}`,
        '',
        '| figure | median | spread | unit | target | samples |',
        '|---|---:|---|---|---|---:|',
      );
      for (const r of s.results.filter((x) => x.group === g)) {
        lines.push(
          `| ${r.figure} | ${fmt(r.median)} | ${r.spread} | ${r.unit} | ${r.target ?? ''} | ${r.samples} |`,
        );
      }
      lines.push('');
    }
  }
  return `${lines.join('\n')}\n`;
}

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? MODULES.filter((m) => wanted.includes(m)) : [...MODULES];

// Each module in a fresh process when several run: modules keep state per process (a handler's
// metrics emitter is built once, disabled by whichever local stack loaded it first; the cost
// bench then counted no EMF line), and one module's heap and warm code would colour the next's.
if (names.length > 1) {
  for (const name of names) {
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name], {
      stdio: 'inherit',
    });
    if (child.status !== 0) process.exit(child.status ?? 1);
  }
  process.exit(0);
}
const resultsFile = join(PROJECT_ROOT, 'bench', 'results.json');
const stored: Stored[] = existsSync(resultsFile) ? JSON.parse(await readFile(resultsFile, 'utf8')) : [];

for (const name of names) {
  if (!existsSync(join(PROJECT_ROOT, 'bench', `${name}.ts`))) continue;
  console.log(`bench ${name}...`);
  const mod = (await import(`./${name}.ts`)) as { run(): Promise<BenchResult[]>; about?: string };
  const results = await mod.run();
  for (const r of results)
    console.log(`  ${r.group} | ${r.figure}: ${fmt(r.median)} ${r.unit} (${r.spread}) ${r.target ?? ''}`);
  const entry: Stored = {
    module: name,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    machine: machine(),
    ...(mod.about ? { about: mod.about } : {}),
    results,
  };
  const i = stored.findIndex((s) => s.module === name);
  if (i >= 0) stored[i] = entry;
  else stored.push(entry);
}
stored.sort((a, b) => MODULES.indexOf(a.module as never) - MODULES.indexOf(b.module as never));
await writeFile(resultsFile, `${JSON.stringify(stored, null, 2)}\n`);
await writeFile(join(PROJECT_ROOT, 'BENCHMARKS.md'), render(stored));
console.log('BENCHMARKS.md written');
process.exit(0);
