import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataRoot } from '../aws/services.js';
import { logger } from '../observability.js';
import { ARTIFACT_PATHS } from '../refresh/artifact-paths.js';
import { HotSwap, type VersionSource } from '../refresh/hot-swap.js';
import { openSecurityArtifact, type SecurityArtifact } from '../security/artifact.js';
import { noMatchClassifier, type SecurityClassifier } from '../security/classifier.js';
import { delegatingClassifier } from '../security/list-classifier.js';
import { parseSecurityManifest, SECURITY_FILES, securityDataDir } from '../security/manifest.js';
import { config, type DataRefresh, dataRefresh, resetConfig } from './config.js';

// The container's security classifier. It starts from the data layer's artifact
// (`${dataRoot()}/security/ranges.bin` + manifest.json); without one every flag is false
// (noMatchClassifier: "no match in the loaded data"). With DATA_REFRESH_S3=true and a bucket
// (DATA_BUCKET, else the jobs bucket JOBS_BUCKET) it also follows the versions the refresh Lambda
// publishes under `data/` (../aws/s3-data-source.ts), checking at most every
// DATA_CHECK_INTERVAL_MS (default 5 minutes) and swapping a newer version in without a cold start.

let classifier: Promise<SecurityClassifier> | undefined;
let holder: HotSwap<SecurityClassifier> | undefined;
let layerVersion: string | null = null;

/** The layer's artifact, or null when the layer has none. Throws when it exists but is corrupt. */
export async function loadLayerSecurity(root = dataRoot()): Promise<SecurityArtifact | null> {
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

async function build(refresh: DataRefresh | null): Promise<SecurityClassifier> {
  let layer: SecurityArtifact | null = null;
  try {
    layer = await loadLayerSecurity();
  } catch (error) {
    // A corrupt layer artifact must not take lookups down: serve "no match" and say so.
    logger.error('security data in the layer is unreadable; serving no-match', { error: error as Error });
  }
  layerVersion = layer?.version ?? null;
  const initial = { version: layerVersion, value: layer?.classifier ?? noMatchClassifier };
  if (refresh === null) {
    // No S3 versions: follow the data directory itself, which `npm run data:refresh` rewrites
    // (in Lambda /opt/data never changes, and a check is one small read every few minutes).
    return follow(initial, directoryVersions(dataRoot()), config().DATA_CHECK_INTERVAL_MS);
  }

  // Loaded only when S3 refresh is on: the S3 client is not on the lookup path otherwise.
  const [{ s3Client }, { S3DataStore, s3VersionSource }] = await Promise.all([
    import('../aws/s3-client.js'),
    import('../aws/s3-data-source.js'),
  ]);
  const store = new S3DataStore(s3Client(), refresh.bucket);
  const source = s3VersionSource<SecurityClassifier>(store, async (read) => {
    const [table, manifest] = await Promise.all([
      read(ARTIFACT_PATHS.securityTable),
      read(ARTIFACT_PATHS.securityManifest),
    ]);
    return openSecurityArtifact(table, new TextDecoder().decode(manifest)).classifier;
  });
  return follow(initial, source, refresh.checkIntervalMs);
}

function follow(
  initial: { version: string | null; value: SecurityClassifier },
  source: VersionSource<SecurityClassifier>,
  checkIntervalMs: number,
): SecurityClassifier {
  const swap = new HotSwap(initial, source, {
    checkIntervalMs,
    onSwap: (from, to) => logger.info('security data swapped in', { from, to }),
    onError: (error, version) =>
      logger.warn('security data check failed; keeping the current version', {
        version,
        error: error as Error,
      }),
  });
  holder = swap;
  return delegatingClassifier(() => swap.current());
}

/** The security versions of a data directory: its manifest names the version in it. */
function directoryVersions(root: string): VersionSource<SecurityClassifier> {
  const manifestPath = join(securityDataDir(root), SECURITY_FILES.manifest);
  const versionNow = async (): Promise<string | null> => {
    try {
      return parseSecurityManifest(await readFile(manifestPath, 'utf8')).version;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  };
  return {
    latestVersion: versionNow,
    load: async (version) => {
      const artifact = await loadLayerSecurity(root);
      if (!artifact || artifact.version !== version) {
        throw new Error(`the security data in ${root} changed while it was loaded`);
      }
      return artifact.classifier;
    },
  };
}

/**
 * The container's classifier (built once; a failed build is retried by the next call). `refresh`:
 * the S3 versions it follows (config.ts dataRefresh); null, the layer's data only.
 */
export function securityClassifier(refresh: DataRefresh | null = dataRefresh()): Promise<SecurityClassifier> {
  classifier ??= build(refresh);
  classifier.catch(() => {
    classifier = undefined;
  });
  return classifier;
}

/** Version in service (null: no data loaded), for logs and the lookup's data version. */
export function securityDataVersion(): string | null {
  return holder?.version ?? layerVersion;
}

/**
 * Drops the container's classifier and the configuration it was built from, so the next call
 * rebuilds it from the current environment (tests, benchmarks).
 */
export function resetSecurityClassifier(): void {
  classifier = undefined;
  holder = undefined;
  layerVersion = null;
  resetConfig();
}
