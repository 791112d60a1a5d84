import { EMAIL_LIST_FILES, type EmailLists, emailListsFrom } from '../email/lists.js';

// The email lists of a published data version, read straight from its files (an S3 version through
// s3VersionSource, ../aws/s3-data-source.ts) without a directory: what the email runtime hands to a
// HotSwap to follow refreshed disposable lists and MX hosts the way runtime/security.ts follows the
// security data. A published version holds every file, so a missing one fails the load (`read` throws)
// except for the files that versions published before them lack (ADDED_LATER): their absence is
// what emailListsFrom makes of an absent optional file (an empty relay list), so such a version,
// kept for rollback, still loads. `read` tells a missing file from a failed read only by throwing,
// so a failed read of one of those files counts as its absence too; the required files fail the
// load as before.

/** Files that versions published before them lack. */
const ADDED_LATER: ReadonlySet<string> = new Set([EMAIL_LIST_FILES.relays]);

export async function emailListsFromVersion(
  read: (path: string) => Promise<Uint8Array>,
): Promise<EmailLists> {
  const decoder = new TextDecoder();
  return emailListsFrom(async (file) => {
    try {
      return decoder.decode(await read(`email/${file}`));
    } catch (error) {
      if (ADDED_LATER.has(file)) return undefined;
      throw error;
    }
  });
}
