import type { Plugin } from 'esbuild';

// A bundle with one part taken out, to measure what that part costs a cold start (bench/bundles.ts,
// "What one part costs lookup-ip's cold start"). Every import of a module the pattern matches loads
// a stand-in with the same export names instead, each of them one Proxy that can be called,
// constructed, extended and read from, and answers itself: the modules that use the part still load
// and run their top-level code, but nothing of the part is parsed or run. Such a bundle is imported
// to be timed, never invoked.

const NAMESPACE = 'stub-part';

/** The stand-in's source: `names` exported, and a default. */
function standIn(names: readonly string[]): string {
  return [
    'const target = function () { return stub; };',
    // `then` reads undefined, so a top-level await of a stand-in does not wait forever.
    "const stub = new Proxy(target, { get: (t, key) => (key === 'then' ? undefined : key === 'prototype' ? t.prototype : key === Symbol.toPrimitive ? () => 1 : stub), apply: () => stub, construct: () => stub });",
    `export { ${names.map((name) => `stub as ${name}`).join(', ')} };`,
    'export default stub;',
  ].join('\n');
}

/**
 * The plugin replacing every module whose resolved path (or, for Node's own modules, specifier)
 * matches `part`. The export names are those of the real module, imported by this process.
 */
export function stubPart(part: RegExp): Plugin {
  return {
    name: NAMESPACE,
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        // Parts are imported statically. A resolve another plugin asks for (one-static-chunk.ts
        // resolves every import() target again) is left to it: asking again from here would loop.
        if (args.kind === 'entry-point' || args.kind === 'dynamic-import' || args.pluginData !== undefined)
          return undefined;
        if (args.path.startsWith('node:')) {
          return part.test(args.path) ? { path: args.path, namespace: NAMESPACE } : undefined;
        }
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: NAMESPACE,
        });
        if (resolved.errors.length > 0 || resolved.external || !part.test(resolved.path)) return undefined;
        return { path: resolved.path, namespace: NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, async (args) => {
        const real = (await import(args.path)) as Record<string, unknown>;
        const names = Object.keys(real).filter(
          (name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name),
        );
        return { contents: standIn(names), loader: 'js' };
      });
    },
  };
}
