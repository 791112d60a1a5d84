import type { Metafile } from 'esbuild';

// What a split bundle (infra/bundling.ts) loads when: its entry and the chunks the entry imports
// statically, transitively, are read, parsed and evaluated at every cold start; the chunks behind a
// dynamic import() are read on that import's first call only.

export interface BundleGraph {
  /** Output files (JavaScript, no maps) loaded at the cold start, the entry first. */
  atStart: string[];
  /** Output files loaded only behind a dynamic import(), if ever. */
  lazy: string[];
}

function reachable(metafile: Metafile, from: string, kinds: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (kinds.includes(imported.kind) && metafile.outputs[imported.path]) visit(imported.path);
    }
  };
  visit(from);
  return [...seen];
}

/** The graph of the entry output `entry` (a key of metafile.outputs). */
export function bundleGraph(metafile: Metafile, entry: string): BundleGraph {
  if (!metafile.outputs[entry]) throw new Error(`no output ${entry}`);
  const atStart = reachable(metafile, entry, ['import-statement']);
  const started = new Set(atStart);
  const lazy = reachable(metafile, entry, ['import-statement', 'dynamic-import']).filter(
    (f) => !started.has(f),
  );
  return { atStart, lazy };
}

/** Minified bytes of `files`. */
export function bytesOf(metafile: Metafile, files: readonly string[]): number {
  return files.reduce((sum, file) => sum + (metafile.outputs[file]?.bytes ?? 0), 0);
}

/** Source files with code in `files` and the bytes each contributes to them. */
export function inputsOf(metafile: Metafile, files: readonly string[]): Map<string, number> {
  const inputs = new Map<string, number>();
  for (const file of files) {
    for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[file]?.inputs ?? {})) {
      if (bytesInOutput > 0) inputs.set(input, (inputs.get(input) ?? 0) + bytesInOutput);
    }
  }
  return inputs;
}
