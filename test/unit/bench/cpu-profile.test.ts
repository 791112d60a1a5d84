import type { SourceMap } from 'node:module';
import { describe, expect, test } from '@jest/globals';
import {
  COMPILING,
  type CpuProfile,
  GC,
  importCostOf,
  LOADING,
  meanCost,
  partOfSource,
  RUNNING,
  SOURCE_MAPS,
} from '../../../bench/support/cpu-profile.js';

// Where the bench's "time above the floor" comes from (bench/bundles.ts): each sample of a CPU
// profile is put to one kind of work.

const frame = (id: number, functionName: string, url: string, lineNumber = -1, columnNumber = -1) => ({
  id,
  callFrame: { functionName, url, lineNumber, columnNumber },
});

describe('import cost from a CPU profile', () => {
  test("each sample's self time goes to one kind of work, bundle code to its part through the source map", () => {
    const profile: CpuProfile = {
      nodes: [
        frame(1, 'compileSourceTextModule', 'node:internal/modules/esm/utils'),
        frame(2, 'lineLengths', 'node:internal/source_map/source_map_cache'),
        frame(3, '(garbage collector)', ''),
        frame(4, 'resolve', 'node:internal/modules/esm/resolve'),
        frame(5, 'p', 'file:///b/lookup-ip/chunks/chunk-A.mjs', 1, 200),
        frame(6, 'q', 'file:///b/lookup-ip/chunks/chunk-A.mjs', 1, 900),
        frame(7, '', 'file:///b/lookup-ip/index.mjs', 0, 0),
        frame(8, 'readFileUtf8', ''),
        frame(9, 'unsampled', 'node:internal/url'),
      ],
      samples: [1, 1, 2, 3, 4, 5, 6, 6, 7, 8],
      timeDeltas: [1000, 500, 250, 2000, 100, 300, 400, 400, 700, 150],
    };
    const maps: Record<string, SourceMap> = {
      '/b/lookup-ip/chunks/chunk-A.mjs': {
        findEntry: (_line: number, column: number) =>
          column < 500
            ? { originalSource: '../../node_modules/zod/v4/core/core.js' }
            : { originalSource: '../../functions/lib/ip/timezone.ts' },
      } as unknown as SourceMap,
    };
    const cost = importCostOf(profile, (file) => maps[file] ?? null);
    expect(Object.fromEntries(cost)).toEqual({
      [COMPILING]: 1.5,
      [SOURCE_MAPS]: 0.25,
      [GC]: 2,
      [LOADING]: 0.25,
      [`${RUNNING}zod`]: 0.3,
      [`${RUNNING}functions/lib/ip`]: 0.8,
      [`${RUNNING}the files' top-level statements and esbuild's module wrappers`]: 0.7,
    });
  });

  test('parts are npm packages (scoped too) or our folders', () => {
    expect(partOfSource('../../node_modules/@aws-sdk/client-dynamodb/dist-es/index.js')).toBe(
      '@aws-sdk/client-dynamodb',
    );
    expect(partOfSource('../../functions/lib/http/body.ts')).toBe('functions/lib/http');
    expect(partOfSource('../../functions/routes.ts')).toBe('functions/routes.ts');
    expect(partOfSource('../../functions/lookup-ip/handler.ts')).toBe('functions/lookup-ip');
  });

  test('the mean over profiles counts a kind absent from one as 0 there', () => {
    const mean = meanCost([
      new Map([['a', 2]]),
      new Map([
        ['a', 4],
        ['b', 2],
      ]),
    ]);
    expect(Object.fromEntries(mean)).toEqual({ a: 3, b: 1 });
  });
});
