import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as z from 'zod';
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
}

/**
 * Builds the data layer unless `dataDir` holds one in DATA_LAYER_FORMAT. Returns whether it built;
 * throws when the build did not leave a current layer behind.
 */
export async function ensureDataLayer(options: EnsureDataLayerOptions = {}): Promise<boolean> {
  const dataDir = options.dataDir ?? DATA_LAYER_DIR;
  const built = await builtDataLayer(dataDir);
  const found = built?.format ?? null;
  const chosen = options.sources ?? ipBuildSourcesFromEnv();
  const sources = await ipSourcesKey(chosen);
  if (found === DATA_LAYER_FORMAT && built?.sources === sources) return false;
  const log = options.log ?? ((line: string) => console.log(line));
  log(
    found === null
      ? `No data layer in ${dataDir}: building it (npm run build:data)...`
      : found !== DATA_LAYER_FORMAT
        ? `The data layer in ${dataDir} is format ${found}, this source builds ${DATA_LAYER_FORMAT}: rebuilding it (npm run build:data)...`
        : `The data layer in ${dataDir} was built from other IP sources (GEO_CITY_MMDB, GEO_ASN_MMDB, GEOFEEDS): rebuilding it (npm run build:data)...`,
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
