import { type EmailLists, emailListsFrom } from '../email/lists.js';

// The email lists of a published data version, read straight from its files (an S3 version through
// s3VersionSource, ../aws/s3-data-source.ts) without a directory: what the email runtime hands to a
// HotSwap to follow refreshed disposable lists and MX hosts the way runtime/security.ts follows the
// security data. A published version holds every file, so a missing one fails the load (`read` throws).

export async function emailListsFromVersion(
  read: (path: string) => Promise<Uint8Array>,
): Promise<EmailLists> {
  const decoder = new TextDecoder();
  return emailListsFrom(async (file) => decoder.decode(await read(`email/${file}`)));
}
