import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataRoot } from '../aws/services.js';
import { logger } from '../observability.js';
import { ARTIFACT_PATHS } from '../refresh/artifact-paths.js';
import type { HotSwap, VersionSource } from '../refresh/hot-swap.js';
import { openSecurityArtifact, type SecurityArtifact } from '../security/artifact.js';
import { noMatchClassifier, type SecurityClassifier } from '../security/classifier.js';
import { delegatingClassifier } from '../security/list-classifier.js';
import { parseSecurityManifest, SECURITY_FILES, securityDataDir } from '../security/manifest.js';
import { type DataRefresh, dataRefresh } from './config.js';
import { followVersions, manifestDirectoryVersions } from './follow-data.js';
import { asyncPart, part, type Services } from './services.js';

// The instance's security classifier. It starts from the data layer's artifact
// (`${dataRoot()}/security/ranges.bin` + manifest.json); without one every flag is false
// (noMatchClassifier: "no match in the loaded data"). With DATA_REFRESH_S3=true and a bucket
// (DATA_BUCKET, else the jobs bucket JOBS_BUCKET) it also follows the versions the refresh Lambda
// publishes under `data/` (../aws/s3-data-source.ts), checking at most every
// DATA_CHECK_INTERVAL_MS (default 5 minutes) and swapping a newer version in without a cold start.

/** The versions in service of an instance: the followed one, else the layer's. */
const versions = /* @__PURE__ */ part(() => ({
  holder: undefined as HotSwap<SecurityClassifier> | undefined,
  layer: null as string | null,
}));

/** The layer's artifact, or null when the layer has none. Throws when it exists but is corrupt. */
export async function loadLayerSecurity(root: string): Promise<SecurityArtifact | null> {
  const dir = securityDataDir(root);
  let table: Buffer;
  let manifest: string;
  try {
    [table, manifest] = await Promise.all([
      readFile(join(dir, SECURITY_FILES.table)),
      readFile(join(dir, SECURITY_FILES.manifest), 'utf8'),
    ]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return openSecurityArtifact(table, manifest);
}

async function build(s: Services, refresh: DataRefresh | null): Promise<SecurityClassifier> {
  let layer: SecurityArtifact | null = null;
  try {
    layer = await loadLayerSecurity(dataRoot(s));
  } catch (error) {
    // A corrupt layer artifact must not take lookups down: serve "no match" and say so.
    logger.error('security data in the layer is unreadable; serving no-match', { error: error as Error });
  }
  const state = versions(s);
  state.layer = layer?.version ?? null;
  const initial = { version: state.layer, value: layer?.classifier ?? noMatchClassifier };
  if (refresh === null) {
    // No S3 versions: follow the data directory itself (follow-data.ts).
    return follow(s, initial, securityDirectory(dataRoot(s)), s.config.DATA_CHECK_INTERVAL_MS);
  }

  // Loaded only when S3 refresh is on: the S3 client is not on the lookup path otherwise.
  const [{ s3Client }, { S3DataStore, s3VersionSource }] = await Promise.all([
    import('../aws/s3-client.js'),
    import('../aws/s3-data-source.js'),
  ]);
  const store = new S3DataStore(s3Client(s), refresh.bucket);
  const source = s3VersionSource<SecurityClassifier>(store, async (read) => {
    const [table, manifest] = await Promise.all([
      read(ARTIFACT_PATHS.securityTable),
      read(ARTIFACT_PATHS.securityManifest),
    ]);
    return openSecurityArtifact(table, new TextDecoder().decode(manifest)).classifier;
  });
  return follow(s, initial, source, refresh.checkIntervalMs);
}

function follow(
  s: Services,
  initial: { version: string | null; value: SecurityClassifier },
  source: VersionSource<SecurityClassifier>,
  checkIntervalMs: number,
): SecurityClassifier {
  const swap = followVersions('security data', initial, source, checkIntervalMs);
  versions(s).holder = swap;
  return delegatingClassifier(() => swap.current());
}

/** The security versions of a data directory: its manifest names the version in it. */
function securityDirectory(root: string): VersionSource<SecurityClassifier> {
  return manifestDirectoryVersions(
    'security data',
    join(securityDataDir(root), SECURITY_FILES.manifest),
    (text) => parseSecurityManifest(text).version,
    async () => {
      const artifact = await loadLayerSecurity(root);
      return { version: artifact?.version ?? null, value: artifact?.classifier ?? noMatchClassifier };
    },
  );
}

/**
 * The instance's classifier (built once; a failed build is retried by the next call). It follows
 * the S3 versions of the configuration's data refresh (config.ts dataRefresh), else the data
 * directory.
 */
export const securityClassifier = /* @__PURE__ */ asyncPart((s) => build(s, dataRefresh(s.config)));

/** Version in service (null: no data loaded), for logs and the lookup's data version. */
export function securityDataVersion(s: Services): string | null {
  const { holder, layer } = versions(s);
  return holder?.version ?? layer;
}
