// Data versions: `YYYYMMDDTHHMMSSZ-<12 hex of the content hash>`. The UTC timestamp first makes
// versions sort by age as plain strings (the hot-swap only moves forward), so a refresh stamps its
// version after the one in service even within the same second (nextVersionId); the hash names the
// content.

const VERSION = /^\d{8}T\d{6}Z-[0-9a-f]{1,32}$/;

export function versionId(at: Date, contentHash: string): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return `${stamp}-${contentHash.slice(0, 12)}`;
}

/**
 * The id of a version published after `previous`: stamped `at`, or one second after `previous`'s
 * stamp when `at` is not later (two refreshes in the same second, or a clock that stepped back).
 * Without this, the later build of one second would sort before the earlier one half the time and
 * no function would ever swap it in.
 */
export function nextVersionId(at: Date, contentHash: string, previous: string | null): string {
  const after = previous === null ? null : stampOf(previous);
  const stamp =
    after !== null && Math.floor(at.getTime() / 1000) * 1000 <= after ? new Date(after + 1000) : at;
  return versionId(stamp, contentHash);
}

/** The time a version id is stamped with, in ms; null for text that is not a version id. */
function stampOf(version: string): number | null {
  const m = isVersionId(version) ? /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z/.exec(version) : null;
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : null;
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

/**
 * A version as reports name it (GET /v1/data, `X-Data-Version`): data built with no sources at all
 * (EMPTY_VERSION, a fresh clone's security lists) is none, as no data is. The hot-swap still
 * compares EMPTY_VERSION, so any real version replaces it.
 */
export function reportedVersion(version: string | null | undefined): string | null {
  return version === undefined || version === EMPTY_VERSION ? null : version;
}
