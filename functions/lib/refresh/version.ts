// Data versions: `YYYYMMDDTHHMMSSZ-<12 hex of the content hash>`. The UTC timestamp first makes
// versions sort by age as plain strings (the hot-swap only moves forward); the hash tells two builds
// of the same moment apart and names the content.

const VERSION = /^\d{8}T\d{6}Z-[0-9a-f]{1,32}$/;

export function versionId(at: Date, contentHash: string): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return `${stamp}-${contentHash.slice(0, 12)}`;
}

export function isVersionId(text: string): boolean {
  return VERSION.test(text);
}

/** Whether `candidate` is a later version than `current` (null: nothing loaded yet). */
export function isNewerVersion(candidate: string, current: string | null): boolean {
  return current === null || candidate > current;
}

/** The version of data built with no sources at all: older than any real version. */
export const EMPTY_VERSION = '19700101T000000Z-0';
