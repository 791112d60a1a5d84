import { dirname } from 'node:path';
import type { Plugin } from 'esbuild';

// What a cold start reads, in as few files as the code allows.
//
// Splitting at dynamic import()s, esbuild puts each module in a chunk named by the set of entry
// points that reach it: the function's entry and every import() target. The functions and the SDK
// have dozens of import()s (test mode, the S3 client, the SDK's credential providers), and the
// modules a cold start loads were spread over up to 28 chunks, each shared with one or another of
// them: files Node resolves, reads, compiles and links one by one, at about half a millisecond each
// (BENCHMARKS.md, "One chunk for the cold start").
//
// This plugin reaches every import() target through a small module that also imports the entry. Every
// module the entry reaches is then reached from every entry point, and esbuild puts them in one
// chunk: the cold start reads index.mjs and that chunk. What an import() loads is unchanged: the
// target's own chunk and the chunks it shares with other targets, on its first call. Nothing is
// duplicated: the modules a target shares with the cold start are imported from that chunk, already
// evaluated.
//
// The module re-exports the target: its named exports and its `default` (of a CommonJS target,
// `module.exports` and nothing else, as esbuild's own import() of one gives it), and the entry's
// namespace under a name no identifier can take ("one-static-chunk:entry"), which is what keeps
// the entry's import.

const NAMESPACE = 'one-static-chunk';
/** The entry, as the wrapper imports it: its own specifier, resolved by the plugin. */
const ENTRY = `${NAMESPACE}:entry`;

/**
 * The plugin for a build of the single entry `entry` (an absolute path). `awaitedAtLoad`: import()
 * specifiers awaited while the modules load (a top-level await), left as esbuild splits them: their
 * wrapper would wait for the entry, which would wait for them.
 */
export function oneStaticChunk(entry: string, awaitedAtLoad: readonly string[]): Plugin {
  return {
    name: NAMESPACE,
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${ENTRY}$`) }, () => ({ path: entry }));
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData === NAMESPACE) return undefined;
        if (awaitedAtLoad.includes(args.path)) return undefined;
        const target = await build.resolve(args.path, {
          kind: 'dynamic-import',
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: NAMESPACE,
        });
        // Externals (the runtime's SDK clients, the layer's modules) and failures stay as they are.
        if (target.errors.length > 0 || target.external || target.namespace !== 'file') return target;
        return { path: target.path, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: wrapperOf(args.path),
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
}

/** The module an import() of `target` loads instead. */
function wrapperOf(target: string): string {
  const path = JSON.stringify(target);
  return [
    `export * as ${JSON.stringify(ENTRY)} from ${JSON.stringify(ENTRY)};`,
    `export * from ${path};`,
    `import * as target from ${path};`,
    // A computed key: `target.default` would warn at build time for a target without one.
    `const key = 'default';`,
    'export default target[key];',
  ].join('\n');
}
