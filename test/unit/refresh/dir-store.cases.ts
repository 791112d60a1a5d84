import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { checkManifestFiles, directoryFiles, directoryVersions } from '../../../functions/lib/ip/ip-data.js';
import { IP_DATA_FILES, type IpManifest, parseIpManifest } from '../../../functions/lib/ip/manifest.js';
import {
  ipCurrentFromDir,
  type PublishOps,
  publishIpToDir,
} from '../../../functions/lib/refresh/dir-store.js';
import { runIpRefresh } from '../../../functions/lib/refresh/ip-refresh.js';
import { snapshotFetcher } from '../../../functions/lib/refresh/snapshot-fetcher.js';
import { LAYER_BUILD_PREFIX, updateBeside } from '../../../layers/build/data-layer.js';
import { FIXTURE_SNAPSHOTS } from '../security/support/fixtures.js';

// `npm run data:refresh` publishes the IP data into the data directory file by file, the manifest
// last. A run killed between two renames leaves a newer file under the older manifest: the next run
// must publish the version again whole (not find the files "unchanged" on disk), and a reader must
// refuse the mix rather than serve the new file under the old version's name.

let parent: string;
let dir: string;
let ipDir: string;

/** The layer's IP data as its build leaves it: the files (bytes that do not matter here), a manifest without digests. */
async function layer(): Promise<void> {
  await mkdir(ipDir, { recursive: true });
  for (const name of [IP_DATA_FILES.cityV4, IP_DATA_FILES.cityV6, IP_DATA_FILES.asnV4, IP_DATA_FILES.asnV6]) {
    await writeFile(join(ipDir, name), `bytes of ${name}`);
  }
  const manifest: IpManifest = {
    version: '20260101T000000Z-a0',
    datasets: [
      {
        name: 'dbip-city-lite',
        version: '2.3',
        licence: 'CC-BY-4.0',
        source: 'npm',
        count: 703_356,
        role: 'location',
        schema: 'dbip-lite',
        files: [IP_DATA_FILES.cityV4, IP_DATA_FILES.cityV6],
      },
      {
        name: 'asn',
        version: '2.3',
        licence: 'CC-BY-4.0',
        source: 'npm',
        count: 515_157,
        role: 'network',
        schema: 'compiled',
        files: [IP_DATA_FILES.asnV4, IP_DATA_FILES.asnV6],
      },
    ],
  };
  await writeFile(join(ipDir, IP_DATA_FILES.manifest), JSON.stringify(manifest));
}

/** One refresh of the directory's IP data whose only fresh file is the geofeed table. */
async function refresh(feed: string) {
  return runIpRefresh({
    current: await ipCurrentFromDir(dir),
    fetcher: snapshotFetcher(FIXTURE_SNAPSHOTS),
    databases: { location: null, network: null },
    geofeeds: [{ origin: 'ours.csv', text: async () => feed }],
    geonames: false,
    subdivisionSources: { holidays: {}, aliases: {} },
    now: () => new Date('2026-11-22T06:00:00Z'),
  });
}

async function manifestOnDisk(): Promise<IpManifest> {
  return parseIpManifest(await readFile(join(ipDir, IP_DATA_FILES.manifest), 'utf8'));
}

/** Renames as the file system does, then "the process is killed" (throws) once `n` files are in place. */
function killedAfter(n: number): PublishOps {
  let done = 0;
  return {
    rename: async (from, to) => {
      if (done === n) throw new Error('killed');
      await rename(from, to);
      done++;
    },
  };
}

const FEED_A = '2.4.18.0/24,DE,,,\n';
const FEED_B = '2.4.18.0/24,DE,,,\n81.2.69.0/24,FR,,,\n';

describe('the IP data published into a directory, interrupted', () => {
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'netintel-dir-store-'));
    dir = join(parent, 'data');
    ipDir = join(dir, 'ip');
    await layer();
  });
  afterEach(() => rm(parent, { recursive: true, force: true }));

  test('a run killed after one rename is published again whole by the next run, which a reader then accepts', async () => {
    const first = await refresh(FEED_A);
    if (first.status !== 'accepted') throw new Error(`first refresh ${first.status}`);
    await publishIpToDir(dir, first.files, first.checks);
    expect(await refresh(FEED_A)).toMatchObject({ status: 'unchanged', version: first.version });

    const second = await refresh(FEED_B);
    if (second.status !== 'accepted') throw new Error(`second refresh ${second.status}`);
    await expect(publishIpToDir(dir, second.files, second.checks, killedAfter(1))).rejects.toThrow('killed');
    // The mix: the new geofeed table under the first version's manifest.
    expect(await readFile(join(ipDir, IP_DATA_FILES.geofeed), 'utf8')).toContain('81.2.69.0');
    const mixed = await manifestOnDisk();
    expect(mixed.version).toBe(first.version);
    await expect(checkManifestFiles(mixed, directoryFiles(ipDir), ipDir)).rejects.toThrow(
      `${join(ipDir, IP_DATA_FILES.geofeed)} is not the file manifest.json (version ${first.version}) records`,
    );
    // A server following the directory does not swap the mix in.
    await expect(directoryVersions(ipDir).load(first.version)).rejects.toThrow(
      'is not the file manifest.json',
    );

    // The next run does not take the geofeed on disk for the one in service: it publishes again.
    const repair = await refresh(FEED_B);
    expect(repair.status).toBe('accepted');
    if (repair.status !== 'accepted') return;
    await publishIpToDir(dir, repair.files, repair.checks);
    const whole = await manifestOnDisk();
    expect(whole.version).toBe(repair.version);
    await expect(checkManifestFiles(whole, directoryFiles(ipDir), ipDir)).resolves.toBeUndefined();
    expect(await refresh(FEED_B)).toMatchObject({ status: 'unchanged', version: repair.version });
  });

  test('a manifest that records no digests (written before they were) is published again with them', async () => {
    const first = await refresh(FEED_A);
    if (first.status !== 'accepted') throw new Error(`first refresh ${first.status}`);
    await publishIpToDir(dir, first.files, first.checks);
    const recorded = await manifestOnDisk();
    expect(recorded.datasets.map((d) => Object.keys(d.fileSha256 ?? {}))).toEqual([
      [IP_DATA_FILES.cityV4, IP_DATA_FILES.cityV6],
      [IP_DATA_FILES.asnV4, IP_DATA_FILES.asnV6],
      [IP_DATA_FILES.geofeed],
    ]);
    const without = { ...recorded, datasets: recorded.datasets.map(({ fileSha256: _, ...d }) => d) };
    await writeFile(join(ipDir, IP_DATA_FILES.manifest), JSON.stringify(without));
    // Nothing to check the files on disk against: published again, with the digests.
    const again = await refresh(FEED_A);
    expect(again.status).toBe('accepted');
    if (again.status !== 'accepted') return;
    expect(again.manifest.datasets.every((d) => d.fileSha256 !== undefined)).toBe(true);
  });

  test('published beside (npm run data:refresh): a run killed midway leaves the version in service whole', async () => {
    const first = await refresh(FEED_A);
    if (first.status !== 'accepted') throw new Error(`first refresh ${first.status}`);
    await updateBeside(dir, (copy) => publishIpToDir(copy, first.files, first.checks));
    const second = await refresh(FEED_B);
    if (second.status !== 'accepted') throw new Error(`second refresh ${second.status}`);
    await expect(
      updateBeside(dir, async (copy) => {
        await publishIpToDir(copy, second.files, second.checks, killedAfter(1));
      }),
    ).rejects.toThrow('killed');
    // What readers see: the first version, whole.
    const inService = await manifestOnDisk();
    expect(inService.version).toBe(first.version);
    expect(await readFile(join(ipDir, IP_DATA_FILES.geofeed), 'utf8')).not.toContain('81.2.69.0');
    await expect(checkManifestFiles(inService, directoryFiles(ipDir), ipDir)).resolves.toBeUndefined();
    expect((await readdir(parent)).filter((n) => n.startsWith(LAYER_BUILD_PREFIX))).toEqual([]);

    await updateBeside(dir, async (copy) => {
      await publishIpToDir(copy, second.files, second.checks);
      // The copy shares the unchanged files with the directory in service, which stays as it was.
      expect((await manifestOnDisk()).version).toBe(first.version);
      expect(await readFile(join(ipDir, IP_DATA_FILES.geofeed), 'utf8')).not.toContain('81.2.69.0');
    });
    const whole = await manifestOnDisk();
    expect(whole.version).toBe(second.version);
    await expect(checkManifestFiles(whole, directoryFiles(ipDir), ipDir)).resolves.toBeUndefined();
    expect(await readFile(join(ipDir, IP_DATA_FILES.cityV4), 'utf8')).toBe(
      `bytes of ${IP_DATA_FILES.cityV4}`,
    );
    expect(await refresh(FEED_B)).toMatchObject({ status: 'unchanged', version: second.version });
  });
});
