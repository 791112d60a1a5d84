import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EMAIL_LIST_FILES } from '../email/lists.js';
import { directoryFiles, type ReadDataFile } from '../ip/ip-data.js';
import { IP_CHECKS_FILE, IP_DATA_FILES, type IpManifest, parseIpManifest } from '../ip/manifest.js';
import { asnRangesFromCompiled, countryLookupFromMmdb } from '../security/asn-networks.js';
import type { IpCheck, IpFile } from './ip-refresh.js';
import { type ArtifactFile, type CurrentData, readCurrentData } from './refresh.js';
import type { NetworkData } from './security-build.js';

// The file-system side of the refresh: the data directory a refresh reads as "current" and writes
// its artifacts into (the layer's `layers/data` locally, `/opt/data` read-only in Lambda), and the
// layer's IP files (ASN ranges, DB-IP city) the ASN expansion and the sanctioned rule need.

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The version in a data directory (see readCurrentData). */
export function readCurrentFromDir(dataRoot: string): Promise<CurrentData> {
  return readCurrentData((path) => readOptional(join(dataRoot, path)));
}

/** The file operation a publication ends each file with (injected by tests to stop it midway). */
export interface PublishOps {
  rename(from: string, to: string): Promise<void>;
}

const FS_OPS: PublishOps = { rename };

/**
 * Writes artifact files under `dataRoot`, each through a temporary name and a rename, in list order
 * (manifests last), so a reader never sees a half-written file. A process killed between two renames
 * leaves files of the new version under the old manifest: `npm run data:refresh` therefore writes into
 * a copy of the directory swapped in whole (layers/build/data-layer.ts updateBeside), and the IP
 * manifest records each file's SHA-256, which the next refresh compares with and a reader checks
 * (ip-refresh.ts, ip-data.ts).
 */
export async function writeArtifacts(
  dataRoot: string,
  files: readonly ArtifactFile[],
  ops: PublishOps = FS_OPS,
): Promise<void> {
  for (const file of files) {
    const target = join(dataRoot, file.path);
    await mkdir(dirname(target), { recursive: true });
    const temporary = `${target}.tmp-${process.pid}`;
    await writeFile(temporary, file.body);
    await ops.rename(temporary, target);
  }
}

/** ASN ranges and DB-IP city data from a built layer's `ip/` directory; null when it has none. */
export async function networkDataFromLayer(dataRoot: string): Promise<NetworkData | null> {
  const ip = join(dataRoot, 'ip');
  const asn = [IP_DATA_FILES.asnV4, IP_DATA_FILES.asnV6].map((f) => join(ip, f));
  if (!asn.every((p) => existsSync(p))) return null;
  const city = [IP_DATA_FILES.cityV4, IP_DATA_FILES.cityV6].map((f) => join(ip, f));
  const hasCity = city.every((p) => existsSync(p));
  const asnRanges = asnRangesFromCompiled(await Promise.all(asn.map((p) => readFile(p))));
  const countryOf = hasCity
    ? countryLookupFromMmdb(await readFile(city[0] as string), await readFile(city[1] as string))
    : null;
  return {
    asnRanges,
    countryOf,
    description: `data layer ${ip}: ${IP_DATA_FILES.asnV4}, ${IP_DATA_FILES.asnV6}${hasCity ? `, ${IP_DATA_FILES.cityV4}, ${IP_DATA_FILES.cityV6}` : ' (no city MMDB)'}`,
  };
}

/** Email files of the layer that the refresh does not rebuild but a complete version carries. */
export const CARRIED_EMAIL_FILES = [
  EMAIL_LIST_FILES.free,
  EMAIL_LIST_FILES.role,
  EMAIL_LIST_FILES.commonProviders,
  EMAIL_LIST_FILES.relays,
] as const;

/** Those files as artifacts (absent ones skipped). */
export async function carriedEmailFiles(dataRoot: string): Promise<ArtifactFile[]> {
  const out: ArtifactFile[] = [];
  for (const name of CARRIED_EMAIL_FILES) {
    const body = await readOptional(join(dataRoot, 'email', name));
    if (body === null) continue;
    out.push({
      path: `email/${name}`,
      body: new TextEncoder().encode(body),
      contentType: name.endsWith('.json') ? 'application/json' : 'text/plain; charset=utf-8',
    });
  }
  return out;
}

/** The IP data in service in a data directory: its manifest (null: none) and its files. */
export async function ipCurrentFromDir(
  dataRoot: string,
): Promise<{ manifest: IpManifest | null; read: ReadDataFile }> {
  const dir = join(dataRoot, 'ip');
  const read = directoryFiles(dir);
  const text = await readOptional(join(dir, IP_DATA_FILES.manifest));
  let manifest: IpManifest | null = null;
  try {
    manifest = text === null ? null : parseIpManifest(text);
  } catch {
    manifest = null;
  }
  return { manifest, read };
}

/**
 * Writes an accepted IP refresh into `dataRoot/ip` (each file through a temporary name and a rename,
 * the manifest last: running functions swap the version in when they see it, ip-data.ts), then
 * deletes the operator databases the new version no longer lists (an old licensed copy is not kept:
 * GeoLite2's licence asks for that). The layer's default files stay: the security build reads them.
 */
export async function publishIpToDir(
  dataRoot: string,
  files: readonly IpFile[],
  checks: readonly IpCheck[],
  ops: PublishOps = FS_OPS,
): Promise<void> {
  // The files carried from the version in service are in the directory already.
  await writeArtifacts(
    dataRoot,
    files
      .filter((f) => !f.carried)
      .map((f) => ({ path: `ip/${f.name}`, body: f.body, contentType: 'application/octet-stream' })),
    ops,
  );
  const listed = new Set(files.map((f) => f.name));
  for (const name of [IP_DATA_FILES.location, IP_DATA_FILES.network]) {
    if (!listed.has(name)) await rm(join(dataRoot, 'ip', name), { force: true });
  }
  await writeIpChecks(dataRoot, checks);
}

/** What the last IP refresh asked its upstreams, beside the versions (GET /v1/data shows it). */
export async function writeIpChecks(dataRoot: string, checks: readonly IpCheck[]): Promise<void> {
  await writeArtifacts(dataRoot, [
    {
      path: `ip/${IP_CHECKS_FILE}`,
      body: new TextEncoder().encode(`${JSON.stringify({ checks }, null, 2)}\n`),
      contentType: 'application/json',
    },
  ]);
}
