import { EMAIL_LIST_FILES, parseListText } from '../email/lists.js';
import type { IpCheckRecord } from '../ip/manifest.js';
import { sha256Hex } from '../security/artifact.js';
import { type FileReport, parseSecurityManifest, type SecurityManifest } from '../security/manifest.js';
import { type Rejection, shrinkRejections } from '../security/validate.js';
import { ARTIFACT_PATHS, MX_OBSERVATIONS_FILE } from './artifact-paths.js';
import {
  compileEmailSources,
  DISPOSABLE_UNION_REPORT_ID,
  EMAIL_SOURCES,
  type EmailListsManifest,
  emailManifest,
  MX_HOSTS_REPORT_ID,
  parseEmailListsManifest,
} from './email-build.js';
import type { SourceFetcher } from './fetch.js';
import { type MxLearnConfig, type MxObservations, parseMxObservations } from './mx-learn.js';
import {
  compileSecuritySources,
  fileReports,
  type NetworkData,
  securityArtifact,
  securityContentHash,
} from './security-build.js';
import { nextVersionId } from './version.js';

export { ARTIFACT_PATHS };

// One data refresh, end to end and free of I/O of its own (data refresh): fetch every source through
// the fetch port, validate it, compile the security range table and the email lists, and decide.
// The caller publishes the files (S3 in the refresh Lambda, a directory for `npm run data:refresh`)
// only when the outcome is accepted; a rejected refresh leaves the current data in service.

/** The version in service, which a refresh is validated against and continues from. */
export interface CurrentData {
  version: string | null;
  security: SecurityManifest | null;
  email: EmailListsManifest | null;
  /**
   * The email lists in service when no refresh has written them (`email` null): the data layer's
   * npm-built lists, counted from their files. The shrink rule holds the first refresh to them.
   */
  listsInService?: FileReport[];
  /** The refresh's MX observations so far (the MX-host table is rebuilt from them, mx-learn.ts). */
  mxObservations: MxObservations;
  /** Consumer mailbox providers (a mail server serving one is never promoted). */
  free: ReadonlySet<string>;
}

export const NO_CURRENT_DATA: CurrentData = {
  version: null,
  security: null,
  email: null,
  mxObservations: new Map(),
  free: new Set(),
};

/**
 * The current version from its files, `read(path)` giving a file's text or null when absent (a
 * directory or an S3 version). A manifest that does not parse counts as absent: the refresh then
 * runs without that baseline rather than not at all.
 */
export async function readCurrentData(read: (path: string) => Promise<string | null>): Promise<CurrentData> {
  const [securityText, emailText, mxText, freeText, disposableText, allowlistText] = await Promise.all([
    read(ARTIFACT_PATHS.securityManifest),
    read(ARTIFACT_PATHS.emailManifest),
    read(ARTIFACT_PATHS.mxObservations),
    read(`email/${EMAIL_LIST_FILES.free}`),
    read(ARTIFACT_PATHS.disposable),
    read(ARTIFACT_PATHS.allowlist),
  ]);
  const tryParse = <T>(text: string | null, parse: (t: string) => T): T | null => {
    if (text === null) return null;
    try {
      return parse(text);
    } catch {
      return null;
    }
  };
  const security = tryParse(securityText, parseSecurityManifest);
  const email = tryParse(emailText, parseEmailListsManifest);
  return {
    version: security?.version ?? email?.version ?? null,
    security,
    email,
    ...(email === null ? { listsInService: layerListReports(disposableText, allowlistText) } : {}),
    mxObservations: mxText === null ? new Map() : parseMxObservations(mxText),
    free: new Set(freeText === null ? [] : parseListText(freeText)),
  };
}

/**
 * The lists of a data layer that no refresh has written (no lists manifest), as the reports the
 * refresh makes of the same lists: the disposable union and the allowlist, by their entry counts.
 */
function layerListReports(disposable: string | null, allowlist: string | null): FileReport[] {
  const report = (id: string, text: string | null): FileReport[] =>
    text === null
      ? []
      : [
          {
            id,
            url: 'the data layer',
            status: 'ok',
            optional: false,
            count: parseListText(text).length,
            invalid: 0,
            fetchedAt: null,
          },
        ];
  return [
    ...report(DISPOSABLE_UNION_REPORT_ID, disposable),
    ...report(EMAIL_SOURCES.find((s) => s.role === 'allowlist')?.id ?? '', allowlist),
  ];
}

export interface ArtifactFile {
  /** Relative path (ARTIFACT_PATHS). Manifests come last in a file list: they mark completeness. */
  path: string;
  body: Uint8Array;
  contentType: string;
}

export interface RefreshDeps {
  fetcher: SourceFetcher;
  networks: NetworkData | null;
  current: CurrentData;
  /** MX resolution for the MX-host table; null: no queries (the table is rebuilt from the observations). */
  mx: MxLearnConfig | null;
  now: () => Date;
  /**
   * Skip the shrink rule (`npm run data:refresh -- --force`, the refresh function invoked with
   * `{"force": true}`): for a deliberate switch to smaller lists. Every other check still applies.
   */
  force?: boolean;
}

interface OutcomeBase {
  version: string;
  security: SecurityManifest;
  email: EmailListsManifest;
}

export type RefreshOutcome =
  | (OutcomeBase & { accepted: true; files: ArtifactFile[] })
  | (OutcomeBase & { accepted: false; rejections: Rejection[] });

const text = (body: string) => new TextEncoder().encode(body);
const json = (value: unknown) => text(`${JSON.stringify(value, null, 2)}\n`);

/**
 * The email reports held to the shrink rule: all but the MX-host table, which is rebuilt from the
 * refresh's own evidence on every run and shrinks for real when a host's evidence goes away.
 */
function listReports(sources: EmailListsManifest['sources']) {
  return fileReports(sources).filter((report) => report.id !== MX_HOSTS_REPORT_ID);
}

export async function runRefresh(deps: RefreshDeps): Promise<RefreshOutcome> {
  const { current } = deps;
  const security = await compileSecuritySources({ fetcher: deps.fetcher, networks: deps.networks });
  const emailLists = await compileEmailSources({
    fetcher: deps.fetcher,
    mxObservations: current.mxObservations,
    free: current.free,
    mxCursor: current.email?.mx.cursor ?? null,
    // No MX queries when a source already failed: the run will be rejected anyway.
    mx: security.failures.length === 0 ? deps.mx : null,
  });

  // Versions are stamped with the time the refresh ran, and always after the one in service: they
  // must sort by age, which is how a function decides that a version is newer (hot-swap.ts).
  const builtAt = deps.now();
  const version = nextVersionId(
    builtAt,
    sha256Hex(`${securityContentHash(security.compiled)}:${emailLists.contentHash}`),
    current.version,
  );
  const { table, manifest: securityManifest } = securityArtifact(security, version, builtAt);
  const email = emailManifest(emailLists, version, builtAt);

  const rejections: Rejection[] = [
    ...security.failures,
    ...emailLists.failures,
    ...(current.security && !deps.force
      ? shrinkRejections(fileReports(current.security.sources), fileReports(securityManifest.sources))
      : []),
    // Against the last refresh's lists, else the lists in service (the layer's, before the first).
    ...(deps.force
      ? []
      : shrinkRejections(
          current.email ? listReports(current.email.sources) : (current.listsInService ?? []),
          listReports(email.sources),
        )),
  ];
  if (rejections.length > 0) {
    // One reason per list: an unparseable file is not also reported as missing.
    const first = [...new Map(rejections.reverse().map((r) => [r.id, r])).values()].reverse();
    return { accepted: false, rejections: first, version, security: securityManifest, email };
  }
  const files: ArtifactFile[] = [
    { path: ARTIFACT_PATHS.securityTable, body: table, contentType: 'application/octet-stream' },
    {
      path: ARTIFACT_PATHS.disposable,
      body: text(emailLists.files[EMAIL_LIST_FILES.disposable] as string),
      contentType: 'text/plain; charset=utf-8',
    },
    {
      path: ARTIFACT_PATHS.allowlist,
      body: text(emailLists.files[EMAIL_LIST_FILES.allowlist] as string),
      contentType: 'text/plain; charset=utf-8',
    },
    {
      path: ARTIFACT_PATHS.mxHosts,
      body: text(emailLists.files[EMAIL_LIST_FILES.mxHosts] as string),
      contentType: 'text/plain; charset=utf-8',
    },
    {
      path: ARTIFACT_PATHS.mxObservations,
      body: text(emailLists.files[MX_OBSERVATIONS_FILE] as string),
      contentType: 'text/plain; charset=utf-8',
    },
    { path: ARTIFACT_PATHS.securityManifest, body: json(securityManifest), contentType: 'application/json' },
    { path: ARTIFACT_PATHS.emailManifest, body: json(email), contentType: 'application/json' },
  ];
  return { accepted: true, version, security: securityManifest, email, files };
}

/**
 * The record of a lists run (LISTS_CHECKS_FILE): when it asked the upstreams and whether it
 * published; a rejected run's reasons in its note.
 */
export function listsCheck(outcome: RefreshOutcome, at: Date): IpCheckRecord {
  const checkedAt = at.toISOString();
  if (outcome.accepted) return { name: 'lists', checkedAt, status: 'published' };
  const note = outcome.rejections.map((r) => `${r.id}: ${r.reason}`).join('; ');
  return { name: 'lists', checkedAt, status: 'rejected', note };
}

/** LISTS_CHECKS_FILE's bytes for a lists run. */
export function listsCheckFile(outcome: RefreshOutcome, at: Date): Uint8Array {
  return json({ checks: [listsCheck(outcome, at)] });
}
