import { existsSync } from 'node:fs';
import {
  copyFile,
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import { processIsRunning } from '../../infra/process-running.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';

// Whether a checkout's data layer is the one this source builds. The layer is built once and then
// reused by `cdk synth`, `npm start` and the tests; without a recorded format, a layer written by an
// older build (before rdap/dns.json, say) would be deployed and served as it is. Kept apart from
// build-data.ts so that the check does not load the build's dependencies (about 0.4 s).

/**
 * Version of the layer's file set and file formats, recorded as `format` in data/manifest.json.
 * Bump it whenever the build adds, drops or changes a file.
 *   1: layers built before the format was recorded (no rdap/dns.json)
 *   2: rdap/dns.json
 *   3: ip/manifest.json with a version and each dataset's role, schema and files; ip/geofeed.json,
 *      ip/subdivision-aliases.json; the deployer's own databases (ip/location.mmdb, ip/network.mmdb)
 *   4: email/relays.txt (privacy-relay alias domains)
 */
export const DATA_LAYER_FORMAT = 4;

/** Where `npm run build:data` writes the layer's data (mounted at /opt/data). */
export const DATA_LAYER_DIR = join(PROJECT_ROOT, 'layers', 'data');

/** Written last by the build: a layer without it is unbuilt or half-built. */
export const DATA_LAYER_MANIFEST = 'manifest.json';

const ManifestFormat = z.object({
  format: z.int().positive().default(1),
  sources: z.string().default(''),
});

/** The deployer's choice of IP sources for the build (docs/data-sources.md). */
export interface IpBuildSources {
  /** GEO_CITY_MMDB: a City/Country database in the MaxMind schema, or an IPinfo Lite file. */
  cityMmdb?: string;
  /** GEO_ASN_MMDB: an ASN database in the MaxMind schema, or an IPinfo Lite file. */
  asnMmdb?: string;
  /** GEOFEEDS: RFC 8805 feeds, files or URLs. */
  geofeeds?: readonly string[];
}

/** The sources named by the environment (the same variables the refresh reads). */
export function ipBuildSourcesFromEnv(env: NodeJS.ProcessEnv = process.env): IpBuildSources {
  return {
    ...(env.GEO_CITY_MMDB ? { cityMmdb: resolve(env.GEO_CITY_MMDB) } : {}),
    ...(env.GEO_ASN_MMDB ? { asnMmdb: resolve(env.GEO_ASN_MMDB) } : {}),
    geofeeds: (env.GEOFEEDS ?? '')
      .split(',')
      .map((f) => f.trim())
      .filter(Boolean)
      .map((f) => (/^https?:\/\//i.test(f) ? f : resolve(f))),
  };
}

/** A key of the sources a layer was built from: a layer built from others is rebuilt (data-layer.ts). */
export async function ipSourcesKey(sources: IpBuildSources): Promise<string> {
  if (!sources.cityMmdb && !sources.asnMmdb && (sources.geofeeds ?? []).length === 0) return '';
  const parts: string[] = [];
  for (const file of [sources.cityMmdb, sources.asnMmdb, ...(sources.geofeeds ?? [])]) {
    if (!file) {
      parts.push('-');
      continue;
    }
    if (/^https?:\/\//i.test(file)) {
      parts.push(file);
      continue;
    }
    const info = await stat(file).catch(() => null);
    parts.push(`${file}:${info?.size ?? 'absent'}:${info?.mtimeMs ?? 0}`);
  }
  return parts.join('|');
}

/** The format of the layer built in `dataDir`; null when there is none (or its manifest is unreadable). */
export async function builtDataLayerFormat(dataDir: string): Promise<number | null> {
  return (await builtDataLayer(dataDir))?.format ?? null;
}

/** The format and sources key of the layer built in `dataDir`; null when there is none. */
export async function builtDataLayer(dataDir: string): Promise<{ format: number; sources: string } | null> {
  let text: string;
  try {
    text = await readFile(join(dataDir, DATA_LAYER_MANIFEST), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const parsed = ManifestFormat.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface EnsureDataLayerOptions {
  /** Default: DATA_LAYER_DIR. */
  dataDir?: string;
  /** Builds the layer into `dataDir`. Default: buildData in this process. */
  build?: (dataDir: string, sources: IpBuildSources) => unknown;
  log?: (line: string) => void;
  /**
   * The IP sources to build from. Default: the environment's (GEO_CITY_MMDB, GEO_ASN_MMDB,
   * GEOFEEDS). The tests pass none: they answer from the default data whatever a developer's
   * environment names (a test of one's own database files makes a data directory of its own).
   */
  sources?: IpBuildSources;
  /**
   * `npm start`: a layer of the current format that holds data `npm run data:refresh` wrote is kept
   * when only the IP sources differ (a restart without the GEO_* variables it was built with would
   * otherwise throw the refreshed data away); `kept` is told why, with the command that rebuilds it.
   */
  keepRefreshed?: boolean;
  kept?: (note: string) => void;
}

/** The sources a layer was built from, in words (from its ipSourcesKey). */
export function describeSources(key: string): string {
  if (key === '') return 'the default sources';
  const [city, asn, ...feeds] = key
    .split('|')
    .map((part) => (part === '-' || /^https?:\/\//i.test(part) ? part : part.replace(/:[^:]*:[^:]*$/, '')));
  const named = [
    ...(city && city !== '-' ? [`GEO_CITY_MMDB=${city}`] : []),
    ...(asn && asn !== '-' ? [`GEO_ASN_MMDB=${asn}`] : []),
    ...(feeds.length > 0 ? [`GEOFEEDS=${feeds.join(',')}`] : []),
  ];
  return named.join(' ');
}

/**
 * What `npm run data:refresh` wrote into the layer in `dataDir` since it was built: the manifests the
 * refresh writes that are newer than the layer's own (written last by the build).
 */
export async function refreshedSinceBuilt(dataDir: string): Promise<string[]> {
  const built = await stat(join(dataDir, DATA_LAYER_MANIFEST)).catch(() => null);
  if (!built) return [];
  const out: string[] = [];
  for (const [what, path] of [
    ['security lists', 'security/manifest.json'],
    ['email lists', 'email/lists-manifest.json'],
    ['IP data', 'ip/manifest.json'],
  ] as const) {
    const info = await stat(join(dataDir, path)).catch(() => null);
    if (info && info.mtimeMs > built.mtimeMs) out.push(what);
  }
  return out;
}

/**
 * Builds the data layer unless `dataDir` holds one in DATA_LAYER_FORMAT. Returns whether it built;
 * throws when the build did not leave a current layer behind.
 */
export async function ensureDataLayer(options: EnsureDataLayerOptions = {}): Promise<boolean> {
  const dataDir = options.dataDir ?? DATA_LAYER_DIR;
  // A build killed in its swap put back first: the layer it had moved aside is still the one in service.
  await removeStaleBuilds(dataDir);
  const built = await builtDataLayer(dataDir);
  const found = built?.format ?? null;
  const chosen = options.sources ?? ipBuildSourcesFromEnv();
  const sources = await ipSourcesKey(chosen);
  if (found === DATA_LAYER_FORMAT && built?.sources === sources) return false;
  const log = options.log ?? ((line: string) => console.log(line));
  const refreshed = found === null ? [] : await refreshedSinceBuilt(dataDir);
  const otherSources = `was built from ${describeSources(built?.sources ?? '')}, not ${describeSources(sources)}`;
  if (options.keepRefreshed && found === DATA_LAYER_FORMAT && refreshed.length > 0) {
    (options.kept ?? log)(
      `The data layer in ${dataDir} ${otherSources}, and holds ${refreshed.join(', ')} that npm run data:refresh wrote: ` +
        'kept as it is, since a rebuild would discard them. To serve the sources named now: npm run build:data, then npm run data:refresh.',
    );
    return false;
  }
  log(
    (found === null
      ? `No data layer in ${dataDir}: building it (npm run build:data)...`
      : found !== DATA_LAYER_FORMAT
        ? `The data layer in ${dataDir} is format ${found}, this source builds ${DATA_LAYER_FORMAT}: rebuilding it (npm run build:data)...`
        : `The data layer in ${dataDir} ${otherSources}: rebuilding it (npm run build:data)...`) +
      (refreshed.length > 0
        ? ` This discards the ${refreshed.join(', ')} that npm run data:refresh wrote there: run it again afterwards.`
        : ''),
  );
  await (options.build ?? buildInProcess)(dataDir, chosen);
  const after = await builtDataLayerFormat(dataDir);
  if (after !== DATA_LAYER_FORMAT) {
    throw new Error(
      `the build left ${after === null ? 'no layer' : `format ${after}`} in ${dataDir}, not format ${DATA_LAYER_FORMAT}`,
    );
  }
  return true;
}

async function buildInProcess(dataDir: string, sources: IpBuildSources): Promise<void> {
  // Loaded only when a build is due (see the top of this file).
  const { buildData } = await import('./build-data.js');
  await buildData({ outDir: dataDir, sources });
}

/**
 * The temporary directory a build writes in, beside the layer (`layers/.layer-build-<pid>-XXXXXX/`,
 * holding `data/` and `nodejs/`): left out of the layer's asset, the repository and the lint.
 */
export const LAYER_BUILD_PREFIX = '.layer-build-';

/**
 * Removes what builds that died left beside `outDir`. A build killed between moving the old layer
 * aside and moving the new one in left no layer: the old one is put back first. Builds still running
 * (their process is alive) are left alone.
 */
export async function removeStaleBuilds(outDir: string): Promise<void> {
  const parent = dirname(outDir);
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(LAYER_BUILD_PREFIX)) continue;
    const pid = Number(name.slice(LAYER_BUILD_PREFIX.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && processIsRunning(pid)) continue;
    const work = join(parent, name);
    for (const part of await readdir(work).catch(() => [] as string[])) {
      if (!part.startsWith('old-')) continue;
      const target = join(parent, part.slice('old-'.length));
      if (!existsSync(target)) await rename(join(work, part), target);
    }
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Builds a layer without touching the one in service until the new one is complete: `build` writes
 * into a temporary directory beside `outDir` (`<tmp>/<name of outDir>`, and any sibling it makes,
 * such as `<tmp>/nodejs`); on success each built directory replaces its namesake beside `outDir`
 * (the old one is moved aside, the new one renamed in, then the old one deleted), `outDir` last. A
 * build that fails, or a process killed while building, leaves the old layer as it was; the temporary
 * directory is removed (by the next build, after a kill).
 */
export async function buildBeside(outDir: string, build: (dir: string) => Promise<unknown>): Promise<void> {
  const parent = dirname(outDir);
  const name = basename(outDir);
  await mkdir(parent, { recursive: true });
  await removeStaleBuilds(outDir);
  const work = await mkdtemp(join(parent, `${LAYER_BUILD_PREFIX}${process.pid}-`));
  try {
    await mkdir(join(work, name));
    await build(join(work, name));
    const built = (await readdir(work)).filter((part) => part !== name && !part.startsWith('old-'));
    for (const part of [...built, name]) {
      const target = join(parent, part);
      if (existsSync(target)) await rename(target, join(work, `old-${part}`));
      await rename(join(work, part), target);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Changes a data directory in service the way a build is swapped in (buildBeside), for
 * `npm run data:refresh`: the directory is linked file by file into the temporary one (hard links, so
 * the databases are not copied; a copy where the file system refuses a link), `update` changes that
 * copy, and the whole directory is swapped in. A process killed at any point leaves readers the old
 * directory whole or the new one whole (killed between the two renames of the swap, none: the next
 * build, `npm start` or refresh puts the old one back, removeStaleBuilds). `update` must replace files
 * (a write to a temporary name and a rename, or a delete), never write into one: a linked file is
 * shared with the directory in service.
 */
export async function updateBeside(outDir: string, update: (dir: string) => Promise<unknown>): Promise<void> {
  await buildBeside(outDir, async (dir) => {
    if (existsSync(outDir)) await linkTree(outDir, dir);
    await update(dir);
  });
}

/** Recreates the tree under `from` in `to` (which exists), its files hard-linked (copied if refused). */
async function linkTree(from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      await mkdir(target);
      await linkTree(source, target);
    } else if (entry.isSymbolicLink()) {
      await symlink(await readlink(source), target);
    } else if (entry.isFile()) {
      await link(source, target).catch(() => copyFile(source, target));
    }
  }
}
