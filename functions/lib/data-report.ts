import type { ManifestEntry } from './data-manifest.js';
import type { IpCheckRecord, IpManifest } from './ip/manifest.js';
import type { EmailListsManifest } from './refresh/email-build.js';
import { reportedVersion } from './refresh/version.js';
import type { SecurityManifest, SourceReport } from './security/manifest.js';
import * as z from './zod.js';

// What data is in service, where it came from and what is missing: GET /v1/data, the dashboard's
// data panel, `npm start`'s banner and the refresh's `datasetsMissing` metric all read this one
// report, built from the manifests of the versions in service (the IP data's, the security lists'
// and the email lists'). Pure: the callers read the manifests (runtime/data-report.ts).

export const DatasetSchema = z
  .object({
    name: z.string().check(z.describe('Dataset name, e.g. "GeoLite2-City" or "security: tor-exits".')),
    area: z
      .enum(['ip', 'security', 'email'])
      .check(z.describe('What it serves: IP lookups, security flags or email checks.')),
    role: z
      .nullable(z.string())
      .check(z.describe('For IP data: location, network, postal, subdivisions or geofeed; null otherwise.')),
    source: z.string().check(z.describe('Where it comes from (URL, package or file).')),
    version: z
      .string()
      .check(z.describe("The source's version: package version, database build date or fetch time.")),
    edition: z
      .nullable(z.string())
      .check(z.describe('The database type or edition (e.g. "GeoLite2-City"); null when none.')),
    builtAt: z
      .nullable(z.string())
      .check(z.describe('When the source built it (ISO 8601); null when unknown.')),
    checkedAt: z
      .nullable(z.string())
      .check(
        z.describe('When the refresh last asked the upstream for a newer copy (ISO 8601); null when never.'),
      ),
    count: z
      .number()
      .check(z.int(), z.nonnegative(), z.describe('Records in service: networks, ranges, points, domains.')),
    licence: z.string().check(z.describe('Licence as stated upstream.')),
    attribution: z
      .nullable(z.string())
      .check(z.describe('The credit line its licence asks for; null when none is required.')),
    status: z
      .enum(['ok', 'missing'])
      .check(z.describe('missing: empty because its source was not available.')),
    note: z.nullable(z.string()),
  })
  .check(z.describe('One dataset in service.'));

export const DataReportSchema = z
  .object({
    versions: z
      .object({
        ip: z
          .nullable(z.string())
          .check(z.describe('Version of the IP data (also in the X-Data-Version header).')),
        lists: z
          .nullable(z.string())
          .check(
            z.describe(
              'Version of the security and email lists; null when none was built or fetched (a fresh clone).',
            ),
          ),
      })
      .check(z.describe('Versions in service.')),
    datasets: z.array(DatasetSchema),
    missing: z
      .array(z.string())
      .check(z.describe('Datasets that are empty or absent, in words; empty when the data is complete.')),
    fix: z.nullable(z.string()).check(z.describe('How to fill what is missing; null when nothing is.')),
    attribution: z.array(z.string()).check(z.describe('Every credit line the sources in service ask for.')),
  })
  .check(z.describe('The data in service and its provenance.'));

export type Dataset = z.infer<typeof DatasetSchema>;
export type DataReport = z.infer<typeof DataReportSchema>;

export interface DataInService {
  ip: IpManifest | null;
  security: SecurityManifest | null;
  email: EmailListsManifest | null;
  /**
   * The last IP refresh's checks of its upstreams (ip/last-check.json): a run that found nothing new,
   * or was rejected, publishes no manifest but still asked.
   */
  ipChecks?: readonly IpCheckRecord[];
  /** The lists refresh's last run (refresh/artifact-paths.ts LISTS_CHECKS_FILE): a rejected one publishes nothing else. */
  listsChecks?: readonly IpCheckRecord[];
  /** The layer's datasets (its manifest.json), for the email lists a refresh has not yet rebuilt. */
  layer: ManifestEntry[];
  /** The one command (locally) or step (AWS) that fills what is missing. */
  fix: string;
}

/** Credit lines by licence family; a source's own line (ManifestEntry.attribution) wins. */
const CC_BY = /CC[- ]BY(?!-?SA)/i;

function creditOf(entry: {
  name: string;
  licence: string;
  attribution?: string;
  source: string;
}): string | null {
  if (entry.attribution) return entry.attribution;
  // An SPDX expression may come in parentheses already: `(ISC AND CC-BY-3.0)`.
  const licence = entry.licence.replace(/^\((.*)\)$/, '$1');
  if (CC_BY.test(licence)) return `${entry.name}: ${entry.source} (${licence})`;
  return null;
}

function ipDataset(entry: ManifestEntry): Dataset {
  return {
    name: entry.name,
    area: 'ip',
    role: entry.role ?? null,
    source: entry.source,
    version: entry.version,
    edition: entry.edition ?? null,
    builtAt: entry.builtAt ?? null,
    checkedAt: entry.checkedAt ?? null,
    count: Math.max(0, Math.trunc(entry.count)),
    licence: entry.licence,
    attribution: creditOf(entry),
    status: entry.missing || entry.count === 0 ? 'missing' : 'ok',
    note: entry.note ?? null,
  };
}

function listDataset(area: 'security' | 'email', source: SourceReport): Dataset {
  const ok = source.files.filter((f) => f.status === 'ok');
  const fetched = ok.map((f) => f.fetchedAt).filter((t): t is string => t !== null);
  const latest = fetched.sort().at(-1) ?? null;
  return {
    name: `${area}: ${source.id}`,
    area,
    role: null,
    source: source.homepage,
    version: latest ?? 'none',
    edition: null,
    builtAt: null,
    checkedAt: latest,
    count: ok.reduce((sum, f) => sum + f.count, 0),
    licence: source.licence,
    attribution: CC_BY.test(source.licence) ? `${source.name}: ${source.homepage} (${source.licence})` : null,
    status: ok.length > 0 ? 'ok' : 'missing',
    note: source.note ?? null,
  };
}

/** Whether a check of the last IP refresh asked the upstream of a dataset (ip-refresh.ts names them). */
function checkOf(entry: ManifestEntry, check: IpCheckRecord): boolean {
  switch (entry.role) {
    case 'location':
    case 'network':
      // A database that failed is named by its role and the edition asked for.
      return check.name === entry.name || check.name.startsWith(`${entry.role}: `);
    case 'postal':
      return check.name === 'geonames-postal';
    case 'subdivisions':
      return check.name === 'geonames-admin1' || check.name === 'iso-codes';
    case 'geofeed':
      return check.name.startsWith('geofeed ');
    default:
      return false;
  }
}

/**
 * The dataset with the last refresh's checks of its upstream: checkedAt is the latest time it was
 * asked (a run that found nothing new or was rejected publishes no manifest), and a check that failed
 * after the copy in service was checked says so in the note.
 */
function withChecks(d: Dataset, entry: ManifestEntry, checks: readonly IpCheckRecord[]): Dataset {
  const own = checks.filter((c) => checkOf(entry, c));
  if (own.length === 0) return d;
  const latest = own.reduce((a, b) => (b.checkedAt > a.checkedAt ? b : a));
  if (d.checkedAt !== null && d.checkedAt >= latest.checkedAt) return d;
  const failed = own
    .filter((c) => c.status === 'failed' && (d.checkedAt === null || c.checkedAt > d.checkedAt))
    .map((c) => `the check of ${c.name} at ${c.checkedAt} failed${c.note ? `: ${c.note}` : ''}`);
  const note = [d.note, ...failed].filter((n): n is string => n !== null && n !== '').join('; ');
  return { ...d, checkedAt: latest.checkedAt, note: note === '' ? null : note };
}

/**
 * A lists dataset after the lists refresh's last run: a rejected run since the copy in service was
 * fetched asked the upstreams too (checkedAt) and published nothing, which its note says.
 */
function withListsRun(d: Dataset, checks: readonly IpCheckRecord[]): Dataset {
  const run = checks.find((c) => c.name === 'lists');
  if (run?.status !== 'rejected' || (d.checkedAt !== null && d.checkedAt >= run.checkedAt)) return d;
  const rejected = `the refresh at ${run.checkedAt} was rejected, this copy kept${run.note ? ` (${run.note})` : ''}`;
  return { ...d, checkedAt: run.checkedAt, note: d.note ? `${d.note}; ${rejected}` : rejected };
}

/** What a missing IP dataset means for an answer, in words. */
const IP_ROLE_WORDS: Record<NonNullable<ManifestEntry['role']>, string> = {
  location: 'location data (every lookup is found: false)',
  network: 'network data (asn and asOrganization are null)',
  postal: 'postal codes (GeoNames; postalCode is null)',
  subdivisions:
    "subdivision names (GeoNames admin1 and iso-codes' ISO 3166-2 list; region is null for many addresses)",
  geofeed: 'operator geofeeds',
};

/**
 * Said of a subdivision table compiled without iso-codes' list. Its version is the list of sources
 * that built it (ip/compile/subdivisions.ts), `iso-codes` among them when the list was used.
 */
const WITHOUT_ISO_CODES =
  "compiled without iso-codes' ISO 3166-2 list: most subdivision names of the location data map to no code (measured on DB-IP Lite: about 1 in 6 names mapped without it, 4 in 5 with it)";

export function dataReport(data: DataInService): DataReport {
  const datasets: Dataset[] = [];
  const missing: string[] = [];
  for (const entry of data.ip?.datasets ?? []) {
    const d = withChecks(ipDataset(entry), entry, data.ipChecks ?? []);
    // Subdivision names are complete only with GeoNames' admin1 names and iso-codes' list (the
    // fallback lists cover about half of the world's subdivisions; GeoNames' names bridge a location
    // name to an ISO name, which without iso-codes' list is mostly missing). A table built with
    // GeoNames' names carries its credit line; one built with iso-codes' list names it in its version.
    if (entry.role === 'subdivisions') {
      if (!entry.attribution?.includes('GeoNames')) d.status = 'missing';
      if (!/\biso-codes\b/.test(entry.version)) {
        d.status = 'missing';
        d.note = [d.note, WITHOUT_ISO_CODES].filter((n) => n !== null && n !== '').join('; ');
      }
    }
    // No geofeed configured is not missing data.
    if (entry.role === 'geofeed' && entry.count === 0 && !entry.missing) continue;
    datasets.push(d);
    if (d.status === 'missing' && entry.role) missing.push(IP_ROLE_WORDS[entry.role]);
  }
  if (!data.ip) missing.push('IP data (no manifest: rebuild the data layer)');

  const security = data.security;
  if (!security || security.mode === 'none') {
    missing.push('security lists (every security flag is false)');
  } else {
    for (const source of security.sources) {
      const d = listDataset('security', source);
      datasets.push(d);
      // A source of optional files only (a second Tor list, say) is a bonus, not missing data.
      const required = source.files.some((f) => !f.optional);
      if (d.status === 'missing' && required)
        missing.push(`security list ${source.id} (its ${source.flag ?? 'flags'} stay false)`);
    }
  }

  if (data.email) {
    for (const source of data.email.sources) datasets.push(listDataset('email', source));
  } else {
    for (const entry of data.layer) {
      if (
        entry.role ||
        entry.name.startsWith('security') ||
        /^(dbip|asn|subdivisions|geonames)/.test(entry.name)
      )
        continue;
      datasets.push({ ...ipDataset(entry), area: 'email', role: null });
    }
  }

  const listed = datasets.map((d) => (d.area === 'ip' ? d : withListsRun(d, data.listsChecks ?? [])));
  // The credit lines of the data in service: none for a dataset that holds nothing (no postal codes
  // yet, say). A dataset's attribution may hold several lines, one per source it draws on.
  const attribution = [
    ...new Set(
      listed.flatMap((d) => (d.attribution !== null && d.count > 0 ? d.attribution.split('\n') : [])),
    ),
  ];
  return {
    versions: {
      ip: reportedVersion(data.ip?.version),
      lists: reportedVersion(security?.version) ?? reportedVersion(data.email?.version),
    },
    datasets: listed,
    missing,
    fix: missing.length > 0 ? data.fix : null,
    attribution,
  };
}
