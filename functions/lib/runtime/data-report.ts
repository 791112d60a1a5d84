import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataRoot } from '../aws/services.js';
import type { ManifestEntry } from '../data-manifest.js';
import { type DataInService, type DataReport, dataReport } from '../data-report.js';
import {
  IP_CHECKS_FILE,
  IP_DATA_FILES,
  type IpCheckRecord,
  type IpManifest,
  parseIpChecks,
  parseIpManifest,
} from '../ip/manifest.js';
import { ARTIFACT_PATHS, LISTS_CHECKS_FILE } from '../refresh/artifact-paths.js';
import { type EmailListsManifest, parseEmailListsManifest } from '../refresh/email-build.js';
import { isNewerVersion } from '../refresh/version.js';
import { parseSecurityManifest, type SecurityManifest } from '../security/manifest.js';
import { dataRefresh } from './config.js';
import type { Services } from './services.js';

// The manifests of the data in service, for GET /v1/data and the start banner: in AWS
// (DATA_REFRESH_S3) the versions S3's pointers name, else (and for anything not yet published) the
// data directory's own files. Only manifests are read, never the databases; and the refreshes' last
// checks of their upstreams (ip/last-check.json beside the IP versions, lists-last-check.json beside
// the lists'), which a run that publishes nothing still writes.

/** How to fill missing data, by where the data comes from. */
export const FIX_LOCAL =
  'Run `npm run data:refresh` (it fetches the upstream lists and GeoNames; see docs/data-sources.md).';
export const FIX_AWS =
  'The data refresh fills it: it runs at deploy and every 6 hours (its log says why a run was rejected; the DatasetsMissing alarm stays up until it succeeds).';

type Read = (path: string) => Promise<string | null>;

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function parsed<T>(text: string | null, parse: (t: string) => T): T | null {
  if (text === null) return null;
  try {
    return parse(text);
  } catch {
    return null;
  }
}

/** The manifests of a data directory (the layer, or what `npm run data:refresh` wrote). */
export async function dataInDirectory(root: string, fix = FIX_LOCAL): Promise<DataInService> {
  const read: Read = (path) => readText(join(root, path));
  return manifestsFrom(
    read,
    read,
    read,
    () => read(`ip/${IP_CHECKS_FILE}`),
    () => read(LISTS_CHECKS_FILE),
    fix,
  );
}

async function manifestsFrom(
  ipRead: Read,
  listsRead: Read,
  layerRead: Read,
  checksRead: () => Promise<string | null>,
  listsChecksRead: () => Promise<string | null>,
  fix: string,
): Promise<DataInService> {
  const [ip, security, email, layer, ipChecks, listsChecks] = await Promise.all([
    ipRead(`ip/${IP_DATA_FILES.manifest}`).then((t) => parsed<IpManifest>(t, parseIpManifest)),
    listsRead(ARTIFACT_PATHS.securityManifest).then((t) =>
      parsed<SecurityManifest>(t, parseSecurityManifest),
    ),
    listsRead(ARTIFACT_PATHS.emailManifest).then((t) =>
      parsed<EmailListsManifest>(t, parseEmailListsManifest),
    ),
    layerRead('manifest.json').then((t) =>
      parsed(
        t,
        (text) => ((JSON.parse(text) as { datasets?: ManifestEntry[] }).datasets ?? []) as ManifestEntry[],
      ),
    ),
    // Unreadable checks are no checks: the manifests' own times stand.
    checksRead()
      .catch(() => null)
      .then((t) => parsed<IpCheckRecord[]>(t, parseIpChecks)),
    listsChecksRead()
      .catch(() => null)
      .then((t) => parsed<IpCheckRecord[]>(t, parseIpChecks)),
  ]);
  return {
    ip,
    security,
    email,
    layer: layer ?? [],
    ipChecks: ipChecks ?? [],
    listsChecks: listsChecks ?? [],
    fix,
  };
}

/** The report of this deployment's data in service. */
export async function dataReportInService(s: Services): Promise<DataReport> {
  const root = dataRoot(s);
  const local: Read = (path) => readText(join(root, path));
  const refresh = dataRefresh(s.config);
  if (!refresh) return dataReport(await dataInDirectory(root));

  const [{ s3Client }, { S3DataStore, DATA_PREFIX, IP_DATA_PREFIX }] = await Promise.all([
    import('../aws/s3-client.js'),
    import('../aws/s3-data-source.js'),
  ]);
  const decoder = new TextDecoder();
  const layer = await dataInDirectory(root, FIX_AWS);
  /**
   * A prefix's published version, when it is newer than the layer's (`layerVersion`): the one the
   * functions serve (they start from the layer and only move forward, hot-swap.ts); else the layer's.
   */
  const published = (prefix: string, layerVersion: string | null): Read => {
    const store = new S3DataStore(s3Client(s), refresh.bucket, prefix);
    let pointer: Promise<string | null> | undefined;
    return async (path) => {
      pointer ??= store
        .readPointer()
        .then((p) => (p && isNewerVersion(p.version, layerVersion) ? p.version : null));
      const version = await pointer;
      const body = version === null ? null : await store.readFile(version, path.replace(/^ip\//, ''));
      return body === null ? local(path) : decoder.decode(body);
    };
  };
  const ipLayer = layer.ip?.version ?? null;
  const listsLayer = layer.security?.version ?? layer.email?.version ?? null;
  // The refresh writes its checks beside the IP versions (data-refresh/handler.ts).
  const checks = async () => {
    const body = await new S3DataStore(s3Client(s), refresh.bucket, IP_DATA_PREFIX).readBeside(
      IP_CHECKS_FILE,
    );
    return body === null ? null : decoder.decode(body);
  };
  // The lists refresh writes its last run beside the lists' versions (data-refresh/handler.ts).
  const listsChecks = async () => {
    const body = await new S3DataStore(s3Client(s), refresh.bucket, DATA_PREFIX).readBeside(
      LISTS_CHECKS_FILE,
    );
    return body === null ? null : decoder.decode(body);
  };
  return dataReport(
    await manifestsFrom(
      published(IP_DATA_PREFIX, ipLayer),
      published(DATA_PREFIX, listsLayer),
      local,
      checks,
      listsChecks,
      FIX_AWS,
    ),
  );
}
