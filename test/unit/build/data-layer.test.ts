import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import {
  builtDataLayerFormat,
  DATA_LAYER_FORMAT,
  DATA_LAYER_MANIFEST,
  ensureDataLayer,
} from '../../../layers/build/data-layer.js';

// `cdk synth`, `npm start` and the tests reuse a built data layer only when it is of the format this
// source builds. The build is a stand-in that writes a manifest: the real one takes seconds.

let dataDir: string;
let builds: string[];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'netintel-layer-'));
  builds = [];
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const writeManifest = (manifest: unknown) =>
  writeFile(join(dataDir, DATA_LAYER_MANIFEST), JSON.stringify(manifest));

/** Records the call and leaves a current layer behind, as buildData does. */
const build = async (dir: string) => {
  builds.push(dir);
  await writeFile(
    join(dir, DATA_LAYER_MANIFEST),
    JSON.stringify({ format: DATA_LAYER_FORMAT, datasets: [] }),
  );
};

const quiet = { log: () => undefined };

describe('the data layer is rebuilt unless it is of the current format', () => {
  test('a layer of the current format is used as it is', async () => {
    await writeManifest({ format: DATA_LAYER_FORMAT, datasets: [] });
    expect(await ensureDataLayer({ dataDir, build, ...quiet })).toBe(false);
    expect(builds).toEqual([]);
  });

  test('a directory without a manifest (never built, or interrupted) is built', async () => {
    expect(await ensureDataLayer({ dataDir, build, ...quiet })).toBe(true);
    expect(builds).toEqual([dataDir]);
  });

  test('a layer built before the format was recorded is rebuilt', async () => {
    await writeManifest({ builtWith: 'npm packages', datasets: [] });
    expect(await builtDataLayerFormat(dataDir)).toBe(1);
    expect(await ensureDataLayer({ dataDir, build, ...quiet })).toBe(true);
    expect(builds).toEqual([dataDir]);
  });

  test('a layer of another format is rebuilt, and the log says why', async () => {
    await writeManifest({ format: DATA_LAYER_FORMAT + 1, datasets: [] });
    const lines: string[] = [];
    await ensureDataLayer({ dataDir, build, log: (line) => lines.push(line) });
    expect(builds).toEqual([dataDir]);
    expect(lines.join('\n')).toContain(`format ${DATA_LAYER_FORMAT + 1}`);
  });

  test('an unreadable manifest counts as no layer', async () => {
    await writeFile(join(dataDir, DATA_LAYER_MANIFEST), '{"format": 2, "datas');
    expect(await builtDataLayerFormat(dataDir)).toBeNull();
    expect(await ensureDataLayer({ dataDir, build, ...quiet })).toBe(true);
  });

  test('a build that leaves no current layer behind fails loudly', async () => {
    await expect(ensureDataLayer({ dataDir, build: () => undefined, ...quiet })).rejects.toThrow(
      /no layer .* not format/,
    );
  });
});
