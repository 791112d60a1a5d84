import { readFile } from 'node:fs/promises';
import { logger } from '../observability.js';
import { HotSwap, type VersionSource } from '../refresh/hot-swap.js';

// How the runtime follows the lists the refresh publishes (the security data, security.ts; the
// email lists, email.ts): the S3 versions with DATA_REFRESH_S3, else the data directory itself,
// which `npm run data:refresh` rewrites (in Lambda /opt/data never changes, and a check is one
// small read every few minutes). A newer version is swapped in between requests (hot-swap.ts).

/** A HotSwap over `source` that logs its swaps and failed checks as `what` ("security data"). */
export function followVersions<T>(
  what: string,
  initial: { version: string | null; value: T },
  source: VersionSource<T>,
  checkIntervalMs: number,
): HotSwap<T> {
  return new HotSwap(initial, source, {
    checkIntervalMs,
    onSwap: (from, to) => logger.info(`${what} swapped in`, { from, to }),
    onError: (error, version) =>
      logger.warn(`${what} check failed; keeping the current version`, { version, error: error as Error }),
  });
}

/** The version a manifest file names, or null when the file does not exist. */
export async function manifestVersion(
  path: string,
  versionOf: (text: string) => string,
): Promise<string | null> {
  try {
    return versionOf(await readFile(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * The versions of a data directory: the one its manifest (`manifestPath`) names. `load` reads the
 * data and says which version it read; a load that read another version than the one asked for
 * (the refresh rewrote the directory meanwhile) fails, and the next check sees the newer one.
 */
export function manifestDirectoryVersions<T>(
  what: string,
  manifestPath: string,
  versionOf: (text: string) => string,
  load: () => Promise<{ version: string | null; value: T }>,
): VersionSource<T> {
  return {
    latestVersion: () => manifestVersion(manifestPath, versionOf),
    load: async (version) => {
      const loaded = await load();
      if (loaded.version !== version) {
        throw new Error(`the ${what} in ${manifestPath} changed while it was loaded`);
      }
      return loaded.value;
    },
  };
}
