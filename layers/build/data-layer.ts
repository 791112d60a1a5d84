import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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
 */
export const DATA_LAYER_FORMAT = 2;

/** Where `npm run build:data` writes the layer's data (mounted at /opt/data). */
export const DATA_LAYER_DIR = join(PROJECT_ROOT, 'layers', 'data');

/** Written last by the build: a layer without it is unbuilt or half-built. */
export const DATA_LAYER_MANIFEST = 'manifest.json';

const ManifestFormat = z.object({ format: z.int().positive().default(1) });

/** The format of the layer built in `dataDir`; null when there is none (or its manifest is unreadable). */
export async function builtDataLayerFormat(dataDir: string): Promise<number | null> {
  let text: string;
  try {
    text = await readFile(join(dataDir, DATA_LAYER_MANIFEST), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const parsed = ManifestFormat.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.format : null;
  } catch {
    return null;
  }
}

export interface EnsureDataLayerOptions {
  /** Default: DATA_LAYER_DIR. */
  dataDir?: string;
  /** Builds the layer into `dataDir`. Default: buildData in this process. */
  build?: (dataDir: string) => unknown;
  log?: (line: string) => void;
}

/**
 * Builds the data layer unless `dataDir` holds one in DATA_LAYER_FORMAT. Returns whether it built;
 * throws when the build did not leave a current layer behind.
 */
export async function ensureDataLayer(options: EnsureDataLayerOptions = {}): Promise<boolean> {
  const dataDir = options.dataDir ?? DATA_LAYER_DIR;
  const found = await builtDataLayerFormat(dataDir);
  if (found === DATA_LAYER_FORMAT) return false;
  const log = options.log ?? ((line: string) => console.log(line));
  log(
    found === null
      ? `No data layer in ${dataDir}: building it (npm run build:data)...`
      : `The data layer in ${dataDir} is format ${found}, this source builds ${DATA_LAYER_FORMAT}: rebuilding it (npm run build:data)...`,
  );
  await (options.build ?? buildInProcess)(dataDir);
  const built = await builtDataLayerFormat(dataDir);
  if (built !== DATA_LAYER_FORMAT) {
    throw new Error(
      `the build left ${built === null ? 'no layer' : `format ${built}`} in ${dataDir}, not format ${DATA_LAYER_FORMAT}`,
    );
  }
  return true;
}

async function buildInProcess(dataDir: string): Promise<void> {
  // Loaded only when a build is due (see the top of this file).
  const { buildData } = await import('./build-data.js');
  await buildData({ outDir: dataDir });
}
