import {
  type CommonProvidersFile,
  createEmailLists,
  EMAIL_LIST_FILES,
  type EmailLists,
  parseListText,
} from '../email/lists.js';

// The email lists of a published data version, read straight from its files (an S3 version through
// s3VersionSource, ../aws/s3-data-source.ts) without a directory: what the email runtime hands to a
// HotSwap to follow refreshed disposable lists and MX hosts the way runtime/security.ts follows the
// security data. Same files and rules as loadEmailLists (../email/lists.ts).

export async function emailListsFromVersion(
  read: (path: string) => Promise<Uint8Array>,
): Promise<EmailLists> {
  const decoder = new TextDecoder();
  const text = async (name: string) => decoder.decode(await read(`email/${name}`));
  const [disposable, allowlist, free, role, mxHosts, common] = await Promise.all([
    text(EMAIL_LIST_FILES.disposable),
    text(EMAIL_LIST_FILES.allowlist),
    text(EMAIL_LIST_FILES.free),
    text(EMAIL_LIST_FILES.role),
    text(EMAIL_LIST_FILES.mxHosts),
    text(EMAIL_LIST_FILES.commonProviders),
  ]);
  const providers = JSON.parse(common) as Partial<CommonProvidersFile>;
  return createEmailLists({
    disposable: parseListText(disposable),
    allowlist: parseListText(allowlist),
    free: parseListText(free),
    role: parseListText(role),
    mxHostSeeds: parseListText(mxHosts),
    ...(providers.providers ? { commonProviders: providers.providers } : {}),
    ...(providers.tlds ? { commonTlds: providers.tlds } : {}),
  });
}
