import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import {
  buildBeside,
  builtDataLayerFormat,
  DATA_LAYER_FORMAT,
  DATA_LAYER_MANIFEST,
  ensureDataLayer,
  LAYER_BUILD_PREFIX,
  refreshedSinceBuilt,
  removeStaleBuilds,
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

describe('a rebuild replaces the layer only once the new one is complete', () => {
  let parent: string;
  let layer: string;

  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'netintel-layers-'));
    layer = join(parent, 'data');
    // The layer in service: its data and, beside it, its node modules.
    await mkdir(join(layer, 'ip'), { recursive: true });
    await writeFile(join(layer, 'ip', 'manifest.json'), '{"version": "in service"}');
    await writeFile(join(layer, DATA_LAYER_MANIFEST), JSON.stringify({ format: DATA_LAYER_FORMAT }));
    await mkdir(join(parent, 'nodejs'));
    await writeFile(join(parent, 'nodejs', 'old.txt'), 'old');
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  const inService = async () => readFile(join(layer, 'ip', 'manifest.json'), 'utf8');
  const leftovers = async () => (await readdir(parent)).filter((n) => n.startsWith(LAYER_BUILD_PREFIX));

  test('a build that fails leaves the layer in service as it was, and no temporary directory', async () => {
    await expect(
      buildBeside(layer, async (dir) => {
        await writeFile(join(dir, DATA_LAYER_MANIFEST), 'half');
        throw new Error('GEO_CITY_MMDB=/tmp/empty.mmdb: not an MMDB file');
      }),
    ).rejects.toThrow('not an MMDB file');
    expect(await inService()).toBe('{"version": "in service"}');
    expect(await builtDataLayerFormat(layer)).toBe(DATA_LAYER_FORMAT);
    expect(await readFile(join(parent, 'nodejs', 'old.txt'), 'utf8')).toBe('old');
    expect(await leftovers()).toEqual([]);
  });

  test('a build that succeeds replaces the data and the node modules beside it, and deletes the old ones', async () => {
    await buildBeside(layer, async (dir) => {
      // The old layer serves while the new one is written.
      expect(await inService()).toBe('{"version": "in service"}');
      await mkdir(join(dir, 'ip'));
      await writeFile(join(dir, 'ip', 'manifest.json'), '{"version": "new"}');
      await mkdir(join(dir, '..', 'nodejs'));
      await writeFile(join(dir, '..', 'nodejs', 'new.txt'), 'new');
    });
    expect(await inService()).toBe('{"version": "new"}');
    expect(await readdir(join(parent, 'nodejs'))).toEqual(['new.txt']);
    expect((await readdir(parent)).sort()).toEqual(['data', 'nodejs']);
  });

  test('what a killed build left is cleaned up by the next; a layer it had moved aside is put back', async () => {
    // A process that is gone: its pid names the directory it was building in.
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const killedBuilding = join(parent, `${LAYER_BUILD_PREFIX}${dead}-aaaaaa`);
    await mkdir(join(killedBuilding, 'data', 'ip'), { recursive: true });
    await removeStaleBuilds(layer);
    expect(await leftovers()).toEqual([]);
    expect(await inService()).toBe('{"version": "in service"}');

    // Killed between moving the old layer aside and moving the new one in.
    const killedSwapping = join(parent, `${LAYER_BUILD_PREFIX}${dead}-bbbbbb`);
    await mkdir(killedSwapping);
    await rename(layer, join(killedSwapping, 'old-data'));
    await removeStaleBuilds(layer);
    expect(await inService()).toBe('{"version": "in service"}');
    expect(await leftovers()).toEqual([]);

    // A build still running (this process) is left alone.
    const running = join(parent, `${LAYER_BUILD_PREFIX}${process.pid}-cccccc`);
    await mkdir(running);
    await removeStaleBuilds(layer);
    expect(await leftovers()).toEqual([`${LAYER_BUILD_PREFIX}${process.pid}-cccccc`]);
  });

  test('npm run build:data with an unusable GEO_CITY_MMDB keeps the layer in service', async () => {
    const { buildData } = await import('../../../layers/build/build-data.js');
    const empty = join(parent, 'empty.mmdb');
    await writeFile(empty, '');
    await expect(buildData({ outDir: layer, sources: { cityMmdb: empty } })).rejects.toThrow(
      /GEO_CITY_MMDB=.*empty\.mmdb: this is not an MMDB file/,
    );
    expect(await inService()).toBe('{"version": "in service"}');
    expect(await builtDataLayerFormat(layer)).toBe(DATA_LAYER_FORMAT);
    expect(await readFile(join(parent, 'nodejs', 'old.txt'), 'utf8')).toBe('old');
    expect(await leftovers()).toEqual([]);
  }, 120_000);
});

describe('npm start keeps a layer holding refreshed data rather than rebuild it for other sources', () => {
  const builtFrom = async (sources: string) => {
    await writeManifest({ format: DATA_LAYER_FORMAT, sources, datasets: [] });
    const past = new Date(Date.now() - 60_000);
    await utimes(join(dataDir, DATA_LAYER_MANIFEST), past, past);
  };
  const refresh = async () => {
    await mkdir(join(dataDir, 'email'), { recursive: true });
    await writeFile(join(dataDir, 'email', 'lists-manifest.json'), '{}');
  };

  test('a restart without the GEO_* variables the layer was built with keeps its refreshed data, and says so', async () => {
    await builtFrom('/home/me/GeoIP2-City.mmdb:123:456|-');
    await refresh();
    expect(await refreshedSinceBuilt(dataDir)).toEqual(['email lists']);
    const notes: string[] = [];
    const rebuilt = await ensureDataLayer({
      dataDir,
      build,
      sources: {},
      keepRefreshed: true,
      kept: (note) => notes.push(note),
      ...quiet,
    });
    expect(rebuilt).toBe(false);
    expect(builds).toEqual([]);
    expect(notes).toEqual([
      expect.stringContaining(
        'was built from GEO_CITY_MMDB=/home/me/GeoIP2-City.mmdb, not the default sources, and holds email lists',
      ),
    ]);
    expect(notes[0]).toContain('npm run build:data, then npm run data:refresh');
  });

  test('without refreshed data, or where the tests and cdk synth need the sources named, it rebuilds and says what is discarded', async () => {
    await builtFrom('/home/me/GeoIP2-City.mmdb:123:456|-');
    expect(await ensureDataLayer({ dataDir, build, sources: {}, keepRefreshed: true, ...quiet })).toBe(true);
    await builtFrom('/home/me/GeoIP2-City.mmdb:123:456|-');
    await refresh();
    const lines: string[] = [];
    expect(await ensureDataLayer({ dataDir, build, sources: {}, log: (l) => lines.push(l) })).toBe(true);
    expect(lines.join('\n')).toContain('This discards the email lists that npm run data:refresh wrote there');
  });
});

describe('npm run build:data reads its command line before it builds', () => {
  // A rebuild discards what `npm run data:refresh` wrote into the layer: `-- --help` built it.
  let calls: number;
  let printed: string[];
  let errors: string[];
  const stand = async () => {
    calls += 1;
  };
  beforeEach(() => {
    calls = 0;
    printed = [];
    errors = [];
    jest.spyOn(console, 'log').mockImplementation((text: string) => void printed.push(text));
    jest.spyOn(console, 'error').mockImplementation((text: string) => void errors.push(text));
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  test('--help prints the usage and builds nothing', async () => {
    const { main } = await import('../../../layers/build/build-data.js');
    expect(await main(['--help'], stand)).toBe(0);
    expect(calls).toBe(0);
    expect(printed.join('\n')).toMatch(/^usage: npm run build:data \[-- --help\]\n/);
    expect(printed.join('\n')).toContain('what `npm run data:refresh` wrote there is discarded');
  });

  test.each([['--bogus'], ['-x'], ['layers/data'], ['--help=yes']])(
    '%s is refused with exit code 2 and builds nothing',
    async (arg) => {
      const { main } = await import('../../../layers/build/build-data.js');
      expect(await main([arg], stand)).toBe(2);
      expect(calls).toBe(0);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/\nusage: npm run build:data \[-- --help\]$/);
    },
  );

  test('no argument builds; a build that fails is one line and exit code 2', async () => {
    const { main } = await import('../../../layers/build/build-data.js');
    expect(await main([], stand)).toBe(0);
    expect(calls).toBe(1);
    const failing = async () => {
      throw new Error('GEO_CITY_MMDB=/x.mmdb: this is not an MMDB file');
    };
    expect(await main([], failing)).toBe(2);
    expect(errors).toEqual([
      'The data layer could not be built (the layer in service is left as it was): GEO_CITY_MMDB=/x.mmdb: this is not an MMDB file',
    ]);
  });
});
