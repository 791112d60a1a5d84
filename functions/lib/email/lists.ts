import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRelayList } from './relay.js';
import { DEFAULT_COMMON_PROVIDERS, DEFAULT_COMMON_TLDS } from './typo.js';

// The reference lists of the email check, as written by layers/build/email-lists.ts into the data
// layer's `email/` directory. Plain text, one entry per line, `#` starts a comment line; relays.txt
// has `domain<TAB>provider` lines (relay.ts).

export const EMAIL_LIST_FILES = {
  disposable: 'disposable.txt',
  allowlist: 'allowlist.txt',
  free: 'free.txt',
  role: 'role.txt',
  commonProviders: 'common-providers.json',
  mxHosts: 'mx-hosts.txt',
  relays: 'relays.txt',
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
  /** The MX-host table: host suffixes of disposable mail (seeds and hosts the data refresh promoted). */
  readonly mxHostSeeds: readonly string[];
  /** Privacy-relay alias domains -> provider name (relay.ts); each covers its subdomains. */
  readonly relays: ReadonlyMap<string, string>;
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

/**
 * The second-level names reserved for documentation (RFC 2606): they are nobody's mail service, so
 * never disposable whatever a list says (upstream lists carry example.com). Their mail-server status
 * is what their DNS says: a null MX, so `no_mail_server`.
 */
export const RESERVED_EXAMPLE_DOMAINS: readonly string[] = ['example.com', 'example.net', 'example.org'];

/** Builds the lists from entries, removing allowlisted domains from the disposable union. */
export function createEmailLists(entries: {
  disposable?: Iterable<string>;
  allowlist?: Iterable<string>;
  free?: Iterable<string>;
  role?: Iterable<string>;
  commonProviders?: readonly string[];
  commonTlds?: readonly string[];
  mxHostSeeds?: readonly string[];
  relays?: Iterable<readonly [string, string]>;
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
    relays: new Map(entries.relays ?? []),
  };
}

/** Text of one file of the email directory (EMAIL_LIST_FILES); undefined when it does not exist. */
export type EmailFileReader = (file: string) => Promise<string | undefined>;

async function readList(read: EmailFileReader, file: string, required: boolean): Promise<string[]> {
  const text = await read(file);
  if (text !== undefined) return parseListText(text);
  if (required) throw new Error(`email list ${file} is missing`);
  return [];
}

/** An absent file, a JSON null or a missing field: createEmailLists' built-in defaults. */
async function readCommonProviders(read: EmailFileReader): Promise<Partial<CommonProvidersFile>> {
  const text = await read(EMAIL_LIST_FILES.commonProviders);
  if (text === undefined) return {};
  return (JSON.parse(text) as Partial<CommonProvidersFile> | null) ?? {};
}

/** An absent relay list is an empty one: data versions published before it existed still load. */
async function readRelays(read: EmailFileReader): Promise<Map<string, string>> {
  const text = await read(EMAIL_LIST_FILES.relays);
  return text === undefined ? new Map() : parseRelayList(text);
}

/**
 * The lists from the files of an email directory, wherever it is stored (the layer's directory, a
 * published S3 version). The disposable, free and role lists are required; the allowlist, MX-host
 * seeds, common providers and relay domains are optional. The reserved example domains always join
 * the allowlist (test mode's fixed lists, built with createEmailLists, keep their own table).
 */
export async function emailListsFrom(read: EmailFileReader): Promise<EmailLists> {
  const [disposable, allowlist, free, role, mxHostSeeds, common, relays] = await Promise.all([
    readList(read, EMAIL_LIST_FILES.disposable, true),
    readList(read, EMAIL_LIST_FILES.allowlist, false),
    readList(read, EMAIL_LIST_FILES.free, true),
    readList(read, EMAIL_LIST_FILES.role, true),
    readList(read, EMAIL_LIST_FILES.mxHosts, false),
    readCommonProviders(read),
    readRelays(read),
  ]);
  return createEmailLists({
    disposable,
    allowlist: [...allowlist, ...RESERVED_EXAMPLE_DOMAINS],
    free,
    role,
    mxHostSeeds,
    relays,
    ...(common.providers ? { commonProviders: common.providers } : {}),
    ...(common.tlds ? { commonTlds: common.tlds } : {}),
  });
}

/** Loads the lists from a directory (see emailListsFrom). */
export async function loadEmailLists(dir: string): Promise<EmailLists> {
  return emailListsFrom(async (file) => {
    try {
      return await readFile(join(dir, file), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  });
}
