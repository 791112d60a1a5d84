import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

// Where the import time of a bundle goes, from a V8 CPU profile (`node --cpu-prof`) of a process that
// imports it: each sample's self time is put in one kind of work. Node's loader (resolving, reading,
// parsing and compiling each file), the source maps `--enable-source-maps` registers, the garbage
// collector, and the top-level code of the bundle itself, told apart by the part of the project it
// comes from (an npm package, a folder of ours) through the bundle's source maps.

/** The parts of a V8 CPU profile this reads (`.cpuprofile`, JSON). */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  }[];
  samples: number[];
  timeDeltas: number[];
}

export const COMPILING = 'parsing and compiling the files';
export const LOADING = "resolving, reading and linking the files (Node's loader)";
export const SOURCE_MAPS = 'source maps (--enable-source-maps)';
export const BUILTINS = "Node's own modules (its start, and the built-ins the code loads)";
export const GC = 'garbage collection';
export const OTHER = 'V8 and the rest';
/** Top-level code of the bundle, by part: `running <part>`. */
export const RUNNING = 'running ';
/**
 * What a source map puts in no part: each file's top-level statements (one function per module, at
 * its first character) and esbuild's module wrappers.
 */
const UNMAPPED = "the files' top-level statements and esbuild's module wrappers";

/** The part a source file of the bundle belongs to: its npm package, or our folder. */
export function partOfSource(source: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
  if (pkg) return pkg;
  const path = source.replace(/^(\.\.\/)+/, '');
  return path
    .split('/')
    .slice(0, path.startsWith('functions/lib/') ? 3 : 2)
    .join('/');
}

function kindOfNodeFrame(functionName: string, url: string): string {
  if (functionName === 'compileSourceTextModule' || functionName === 'wrapSafe') return COMPILING;
  if (url.startsWith('node:internal/source_map/')) return SOURCE_MAPS;
  if (url.startsWith('node:internal/bootstrap/') || url.startsWith('node:internal/main/')) return BUILTINS;
  if (url.startsWith('node:internal/modules/') || url.startsWith('node:internal/fs/') || url === 'node:fs')
    return LOADING;
  return url.startsWith('node:') ? BUILTINS : LOADING;
}

/**
 * Milliseconds of self time by kind of work in one profile. `mapOf` gives the source map of a file
 * of the bundle (null for none), so its samples are put to their part.
 */
export function importCostOf(
  profile: CpuProfile,
  mapOf: (file: string) => SourceMap | null,
): Map<string, number> {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const cost = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id);
    if (!us) continue;
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    let kind: string;
    if (functionName === '(garbage collector)') kind = GC;
    else if (url.startsWith('file:')) {
      const entry =
        lineNumber >= 0 ? mapOf(fileURLToPath(url))?.findEntry(lineNumber, columnNumber) : undefined;
      const source =
        entry && 'originalSource' in entry && typeof entry.originalSource === 'string'
          ? entry.originalSource
          : undefined;
      kind = `${RUNNING}${source ? partOfSource(source) : UNMAPPED}`;
    } else if (url.startsWith('node:')) kind = kindOfNodeFrame(functionName, url);
    else if (functionName === 'compileSourceTextModule') kind = COMPILING;
    // Natives without a script: file reads and stats are the loader's; (program), (idle) V8's.
    else if (/^\(?(open|read|fstat|internalModule|close)/.test(functionName)) kind = LOADING;
    else kind = OTHER;
    cost.set(kind, (cost.get(kind) ?? 0) + us / 1000);
  }
  return cost;
}

/** A source-map reader with a cache: the `.map` beside a file, or null. */
export function sourceMapReader(): (file: string) => SourceMap | null {
  const maps = new Map<string, SourceMap | null>();
  return (file) => {
    if (!maps.has(file)) {
      try {
        maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
      } catch {
        maps.set(file, null);
      }
    }
    return maps.get(file)!;
  };
}

/** The mean, per profile, of each kind of work over several profiles. */
export function meanCost(costs: readonly Map<string, number>[]): Map<string, number> {
  const sum = new Map<string, number>();
  for (const cost of costs) for (const [kind, ms] of cost) sum.set(kind, (sum.get(kind) ?? 0) + ms);
  return new Map([...sum].map(([kind, ms]) => [kind, ms / costs.length]));
}
