import { EMAIL_LIST_FILES } from '../email/lists.js';
import { mxHostSeeds } from '../email/mx-hosts.js';
import { toAsciiDomain } from '../email/syntax.js';
import { sha256Hex } from '../security/artifact.js';
import { type FileReport, SourceReportSchema } from '../security/manifest.js';
import {
  dataLines,
  type ParseResult,
  type SourceFile,
  SourceFormatError,
} from '../security/sources/parse-result.js';
import { MAX_SHRINK, type Rejection } from '../security/validate.js';
import * as z from '../zod.js';

import { MX_OBSERVATIONS_FILE } from './artifact-paths.js';
import type { SourceFetcher } from './fetch.js';
import {
  formatMxObservations,
  learnMxHosts,
  MIN_LISTED_DOMAINS_PER_HOST,
  type MxLearnConfig,
  type MxObservations,
} from './mx-learn.js';
import { readSources } from './read-source.js';

// The email lists on the refresh pipeline: the three community disposable-domain lists fetched
// upstream, merged, minus the allowlist (the same rule as layers/build/email-lists.ts), and the
// MX-host table rebuilt on every run: the listed seeds plus the hosts the refresh's own MX evidence
// promotes (mx-learn.ts). Written in the formats of ../email/lists.ts, so loadEmailLists reads a
// refreshed directory unchanged; the evidence itself travels beside them (MX_OBSERVATIONS_FILE).

export interface EmailSource {
  id: string;
  name: string;
  licence: string;
  homepage: string;
  role: 'disposable' | 'allowlist';
  file: SourceFile<string>;
}

/** Valid domains of a one-per-line list (lowercase ASCII; IDNs converted to punycode). */
export function parseDomainList(text: string): ParseResult<string> {
  const entries: string[] = [];
  let invalid = 0;
  for (const line of dataLines(text)) {
    const domain = toAsciiDomain(line.toLowerCase());
    if (domain === null) invalid++;
    else entries.push(domain);
  }
  return { entries, invalid };
}

/** 7c/fakefilter `json/data.json`: `{version, t, domains: {<domain>: {provider, firstseen, lastseen}}}`. */
export function parseFakefilterJson(text: string): ParseResult<string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SourceFormatError('fakefilter data.json: not JSON');
  }
  const domains = (json as { domains?: unknown } | null)?.domains;
  if (typeof domains !== 'object' || domains === null || Array.isArray(domains)) {
    throw new SourceFormatError('fakefilter data.json: no "domains" object');
  }
  const entries: string[] = [];
  let invalid = 0;
  for (const key of Object.keys(domains)) {
    const domain = toAsciiDomain(key.trim().toLowerCase());
    if (domain === null) invalid++;
    else entries.push(domain);
  }
  return { entries, invalid };
}

/** Commit of the allowlist kept by layers/build/email-allowlist.txt (upstream deleted the file after it). */
export const ALLOWLIST_COMMIT = 'de9d20d740fb58c972e54f0a9fe1f2112a31ac00';

export const EMAIL_SOURCES: readonly EmailSource[] = [
  {
    id: 'disposable-email-domains',
    name: 'disposable-email-domains blocklist',
    licence: 'CC0-1.0',
    homepage: 'https://github.com/disposable-email-domains/disposable-email-domains',
    role: 'disposable',
    file: {
      id: 'disposable-email-domains',
      url: 'https://raw.githubusercontent.com/disposable-email-domains/disposable-email-domains/main/disposable_email_blocklist.conf',
      snapshot: 'disposable-email-domains/disposable_email_blocklist.conf',
      parse: parseDomainList,
    },
  },
  {
    id: 'burner-email-providers',
    name: 'wesbos/burner-email-providers',
    licence: 'MIT',
    homepage: 'https://github.com/wesbos/burner-email-providers',
    role: 'disposable',
    file: {
      id: 'burner-email-providers',
      url: 'https://raw.githubusercontent.com/wesbos/burner-email-providers/master/emails.txt',
      snapshot: 'burner-email-providers/emails.txt',
      parse: parseDomainList,
    },
  },
  {
    id: 'fakefilter',
    name: '7c/fakefilter',
    licence: 'BSD-3-Clause',
    homepage: 'https://github.com/7c/fakefilter',
    role: 'disposable',
    file: {
      id: 'fakefilter',
      url: 'https://raw.githubusercontent.com/7c/fakefilter/main/json/data.json',
      snapshot: 'fakefilter/data.json',
      parse: parseFakefilterJson,
    },
  },
  {
    id: 'disposable-email-domains-allowlist',
    name: 'disposable-email-domains allowlist (pinned: upstream removed it)',
    licence: 'CC0-1.0',
    homepage: 'https://github.com/disposable-email-domains/disposable-email-domains',
    role: 'allowlist',
    file: {
      id: 'disposable-email-domains-allowlist',
      url: `https://raw.githubusercontent.com/disposable-email-domains/disposable-email-domains/${ALLOWLIST_COMMIT}/allowlist.conf`,
      snapshot: 'disposable-email-domains/allowlist.conf',
      parse: parseDomainList,
    },
  },
];

export const EmailListsManifestSchema = z.object({
  kind: z.literal('netintel-email-lists'),
  version: z.string(),
  builtAt: z.string(),
  mode: z.enum(['upstream', 'snapshot']),
  /** Hash of the three list files (disposable, allowlist, MX hosts). */
  contentHash: z.string(),
  counts: z.object({ disposable: z.number(), allowlist: z.number(), mxHosts: z.number() }),
  mx: z.object({
    /** Where the next run continues in the (sorted) disposable list. */
    cursor: z.nullable(z.string()),
    queried: z.number(),
    failed: z.number(),
    /** Hosts in the table on the refresh's evidence (mx-learn.ts), besides the seeds. */
    learned: z.number(),
    maxDomainsPerRun: z.number(),
  }),
  rules: z.object({ maxShrink: z.number() }),
  sources: z.array(SourceReportSchema),
});
export type EmailListsManifest = z.infer<typeof EmailListsManifestSchema>;

export function parseEmailListsManifest(text: string): EmailListsManifest {
  return EmailListsManifestSchema.parse(JSON.parse(text));
}

export interface EmailCompilation {
  mode: 'upstream' | 'snapshot';
  /** File name (EMAIL_LIST_FILES, MX_OBSERVATIONS_FILE) → content. */
  files: Record<string, string>;
  contentHash: string;
  counts: EmailListsManifest['counts'];
  mx: EmailListsManifest['mx'];
  sources: EmailListsManifest['sources'];
  failures: Rejection[];
}

/** Report id of the MX-host table in the manifest's derived source (as `derived` below names it). */
export const MX_HOSTS_REPORT_ID = 'derived:mx-hosts';
/** Report id of the disposable list served (the union minus the allowlist). */
export const DISPOSABLE_UNION_REPORT_ID = 'derived:disposable-union';

function listFile(header: string, entries: Iterable<string>): string {
  return `# ${header}\n${[...entries].sort().join('\n')}\n`;
}

/** Free-provider domains shown by name in the union's note; the rest are counted. */
const FREE_REMOVED_SHOWN = 10;

/** Note of the disposable union when free-provider domains were removed from it; undefined if none. */
function freeRemovedNote(removed: readonly string[]): string | undefined {
  if (removed.length === 0) return undefined;
  const shown = removed.slice(0, FREE_REMOVED_SHOWN).join(', ');
  const more = removed.length > FREE_REMOVED_SHOWN ? `, and ${removed.length - FREE_REMOVED_SHOWN} more` : '';
  return `${removed.length} free-provider domain${removed.length === 1 ? '' : 's'} removed: ${shown}${more}`;
}

export async function compileEmailSources(options: {
  fetcher: SourceFetcher;
  /** MX observations of the current version (earlier runs' evidence). */
  mxObservations: MxObservations;
  /** Consumer mailbox providers of the current layer: a host serving one is never promoted. */
  free: ReadonlySet<string>;
  /** Where the previous run stopped. */
  mxCursor: string | null;
  /** Null: no MX resolution this run (the table is rebuilt from the observations carried over). */
  mx: MxLearnConfig | null;
  sources?: readonly EmailSource[];
}): Promise<EmailCompilation> {
  const sources = options.sources ?? EMAIL_SOURCES;
  const reads = await readSources(
    options.fetcher,
    sources.map((s) => s.file),
  );
  const failures: Rejection[] = [];
  const disposableUnion = new Set<string>();
  const allowlist = new Set<string>();
  const reports: EmailListsManifest['sources'] = [];
  sources.forEach((source, i) => {
    const read = reads[i] as (typeof reads)[number];
    if (read.failure) failures.push(read.failure);
    for (const domain of read.entries)
      (source.role === 'allowlist' ? allowlist : disposableUnion).add(domain);
    reports.push({
      id: source.id,
      name: source.name,
      licence: source.licence,
      homepage: source.homepage,
      files: [read.report],
    });
  });
  // A consumer mailbox provider (the layer's free.txt) is never served as disposable, whatever a
  // community list says: one bad upstream line would otherwise reject every address at that
  // provider. Removed like the allowlist, and counted in the union's report.
  const freeRemoved = [...disposableUnion].filter((d) => !allowlist.has(d) && options.free.has(d)).sort();
  const disposable = [...disposableUnion].filter((d) => !allowlist.has(d) && !options.free.has(d)).sort();

  const listed = new Set(disposable);
  const mxResult = await learnMxHosts(
    {
      listed,
      allowlisted: allowlist,
      free: options.free,
      cursor: options.mxCursor,
      observations: options.mxObservations,
    },
    // No MX queries when a source failed: the run will be rejected anyway.
    failures.length === 0 ? options.mx : null,
  );
  const seeds = mxHostSeeds((d) => listed.has(d));
  const mxHosts = [...new Set([...seeds, ...mxResult.promoted])].sort();

  const derived = (id: string, count: number, note?: string): FileReport => ({
    id: `derived:${id}`,
    url: 'merged lists',
    status: 'ok',
    optional: false,
    count,
    invalid: 0,
    fetchedAt: null,
    ...(note ? { note } : {}),
  });
  reports.push({
    id: 'merged',
    name: 'Disposable union minus allowlist and free providers; MX-host table',
    licence: 'as its sources',
    homepage: 'functions/lib/refresh/email-build.ts',
    files: [
      derived('disposable-union', disposable.length, freeRemovedNote(freeRemoved)),
      derived('mx-hosts', mxHosts.length, mxResult.skipped ?? undefined),
    ],
  });

  const files: Record<string, string> = {
    [EMAIL_LIST_FILES.disposable]: listFile(
      'Disposable domains: disposable-email-domains + burner-email-providers + fakefilter, minus allowlist and free providers',
      disposable,
    ),
    [EMAIL_LIST_FILES.allowlist]: listFile(
      'Allowlist of disposable-email-domains (CC0), never disposable',
      allowlist,
    ),
    [EMAIL_LIST_FILES.mxHosts]: listFile(
      `Mail-server host suffixes of disposable services: listed seeds + hosts serving at least ${MIN_LISTED_DOMAINS_PER_HOST} listed domains and no allow-listed or free-provider domain (data refresh)`,
      mxHosts,
    ),
    [MX_OBSERVATIONS_FILE]: formatMxObservations(mxResult.observations),
  };
  return {
    mode: options.fetcher.mode,
    files,
    contentHash: sha256Hex(
      [EMAIL_LIST_FILES.disposable, EMAIL_LIST_FILES.allowlist, EMAIL_LIST_FILES.mxHosts]
        .map((f) => files[f])
        .join('\0'),
    ),
    counts: { disposable: disposable.length, allowlist: allowlist.size, mxHosts: mxHosts.length },
    mx: {
      cursor: mxResult.cursor,
      queried: mxResult.queried,
      failed: mxResult.failed,
      learned: mxResult.promoted.filter((host) => !seeds.includes(host)).length,
      maxDomainsPerRun: options.mx?.maxDomains ?? 0,
    },
    sources: reports,
    failures,
  };
}

export function emailManifest(
  compilation: EmailCompilation,
  version: string,
  builtAt: Date,
): EmailListsManifest {
  return {
    kind: 'netintel-email-lists',
    version,
    builtAt: builtAt.toISOString(),
    mode: compilation.mode,
    contentHash: compilation.contentHash,
    counts: compilation.counts,
    mx: compilation.mx,
    rules: { maxShrink: MAX_SHRINK },
    sources: compilation.sources,
  };
}
