import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_COMMON_PROVIDERS, DEFAULT_COMMON_TLDS } from './typo.js';

// The reference lists of the email check, as written by layers/build/email-lists.ts into the data
// layer's `email/` directory. Plain text, one entry per line, `#` starts a comment line.

export const EMAIL_LIST_FILES = {
  disposable: 'disposable.txt',
  allowlist: 'allowlist.txt',
  free: 'free.txt',
  role: 'role.txt',
  commonProviders: 'common-providers.json',
  mxHosts: 'mx-hosts.txt',
} as const;

export interface EmailLists {
  /** Union of the disposable-domain lists, allowlist removed. */
  readonly disposable: ReadonlySet<string>;
  /** Known false positives of the disposable lists. */
  readonly allowlist: ReadonlySet<string>;
  /** Consumer mailbox providers (informational isFreeProvider). */
  readonly free: ReadonlySet<string>;
  /** Role local parts (admin, info, noreply, ...), lowercase. */
  readonly role: ReadonlySet<string>;
  /** Providers typos are corrected towards, most used first. */
  readonly commonProviders: readonly string[];
  /** Top-level domains a misspelt TLD is corrected towards, most used first. */
  readonly commonTlds: readonly string[];
  /** Mail-server host suffixes known to serve disposable domains (seeds of the MX-host table). */
  readonly mxHostSeeds: readonly string[];
}

export interface CommonProvidersFile {
  providers: string[];
  tlds: string[];
}

/** The email data directory under the data layer's root. */
export function emailDataDir(dataRoot: string): string {
  return `${dataRoot}/email`;
}

/** Entries of a one-per-line list: trimmed, lowercased, without blank and `#` comment lines. */
export function parseListText(text: string): string[] {
  const entries: string[] = [];
  for (const line of text.split('\n')) {
    const entry = line.trim().toLowerCase();
    if (entry !== '' && !entry.startsWith('#')) entries.push(entry);
  }
  return entries;
}

async function readList(dir: string, file: string, required: boolean): Promise<string[]> {
  try {
    return parseListText(await readFile(join(dir, file), 'utf8'));
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function readCommonProviders(dir: string): Promise<CommonProvidersFile> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, EMAIL_LIST_FILES.commonProviders), 'utf8')) as
      | Partial<CommonProvidersFile>
      | undefined;
    return {
      providers: parsed?.providers ?? [...DEFAULT_COMMON_PROVIDERS],
      tlds: parsed?.tlds ?? [...DEFAULT_COMMON_TLDS],
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { providers: [...DEFAULT_COMMON_PROVIDERS], tlds: [...DEFAULT_COMMON_TLDS] };
    }
    throw error;
  }
}

/** Builds the lists from entries, removing allowlisted domains from the disposable union. */
export function createEmailLists(entries: {
  disposable?: Iterable<string>;
  allowlist?: Iterable<string>;
  free?: Iterable<string>;
  role?: Iterable<string>;
  commonProviders?: readonly string[];
  commonTlds?: readonly string[];
  mxHostSeeds?: readonly string[];
}): EmailLists {
  const allowlist = new Set(entries.allowlist ?? []);
  const disposable = new Set<string>();
  for (const domain of entries.disposable ?? []) if (!allowlist.has(domain)) disposable.add(domain);
  return {
    disposable,
    allowlist,
    free: new Set(entries.free ?? []),
    role: new Set(entries.role ?? []),
    commonProviders: entries.commonProviders ?? DEFAULT_COMMON_PROVIDERS,
    commonTlds: entries.commonTlds ?? DEFAULT_COMMON_TLDS,
    mxHostSeeds: entries.mxHostSeeds ?? [],
  };
}

/**
 * Loads the lists from a directory (see EMAIL_LIST_FILES). The disposable, free and role lists are
 * required; the allowlist, MX-host seeds and common providers are optional.
 */
export async function loadEmailLists(dir: string): Promise<EmailLists> {
  const [disposable, allowlist, free, role, mxHostSeeds, common] = await Promise.all([
    readList(dir, EMAIL_LIST_FILES.disposable, true),
    readList(dir, EMAIL_LIST_FILES.allowlist, false),
    readList(dir, EMAIL_LIST_FILES.free, true),
    readList(dir, EMAIL_LIST_FILES.role, true),
    readList(dir, EMAIL_LIST_FILES.mxHosts, false),
    readCommonProviders(dir),
  ]);
  return createEmailLists({
    disposable,
    allowlist,
    free,
    role,
    mxHostSeeds,
    commonProviders: common.providers,
    commonTlds: common.tlds,
  });
}
