import { GEOFEED_SPECIAL_BLOCKS, MIN_V4_PREFIX, MIN_V6_PREFIX } from '../ip/geofeed.js';
import { parseIp } from '../ip/parse-ip.js';
import { type SpecialRange, specialRange } from '../ip/special-ranges.js';
import { sha256Hex } from '../security/artifact.js';
import { type AsnRangeSource, type CountryLookup, rangesOfAsns } from '../security/asn-networks.js';
import {
  type CompiledRanges,
  compileRanges,
  countByFlag,
  type LabelledRange,
  tableContent,
} from '../security/compile.js';
import { addressText, cidrText, type IpRange, parseCidr } from '../security/ip-range.js';
import type { FileReport, SecurityManifest, SourceReport } from '../security/manifest.js';
import { SECURITY_FILES } from '../security/manifest.js';
import { encodeRangeTable, RANGE_TABLE_FORMAT_VERSION, RANGE_TABLE_MAGIC } from '../security/range-table.js';
import { findSanctionedNetworks, SANCTIONED_COUNTRIES, SANCTIONED_RULE } from '../security/sanctioned.js';
import { SECURITY_SOURCES, type SecuritySource } from '../security/sources/catalog.js';
import { IPSUM_MIN_LISTS } from '../security/sources/ipsum.js';
import { MAX_SHRINK, type Rejection } from '../security/validate.js';
import type { SourceFetcher } from './fetch.js';
import { readSources } from './read-source.js';

// Fetches and parses every security source, expands the ASN lists and derives the sanctioned
// networks with the ASN data, and compiles everything into one range table (../security/compile.ts).
//
// An entry of a range list is served only when it is plausible for its flag: one upstream line
// "0.0.0.0/0" (or "::/0", "10.0.0.0/8") would otherwise flag every address, public or private. An
// entry is dropped, counted in its file's report (`dropped`, and the first few in the note) and never
// served, when it is broader than /8 (IPv4) or /19 (IPv6), or overlaps a special-purpose range
// (private, loopback, multicast, 6to4, IPv6 outside 2000::/3 ...: ../ip/special-ranges.ts), containing
// one or lying in one. These are the floors and the special blocks an operator geofeed's prefixes are
// held to (../ip/geofeed.ts), and the floors fit the real lists with a margin: their broadest
// legitimate entries are a /9 (IPv4 cloud blocks) and a /24 (IPv6 cloud blocks), while one cloud
// provider's IPv6 list has been seen carrying 2002::/16 (6to4) and 2001:db8::/32 (documentation).
// The report's count is what is served, so a list that loses more than half of its entries this way
// is refused by the shrink rule against the version in service (../security/validate.ts), and a
// required list left with none is refused outright.
//
// Documentation ranges (RFC 5737, RFC 3849, RFC 9637) are held to half the rule for now: an entry
// that is or contains a whole documentation block (2001:db8::/32, 198.51.100.0/24) is an example line,
// never a provider's network, and is dropped; an entry strictly inside one is kept, because the
// project's own test snapshots describe their fictional networks that way. Dropping those too
// (emptying INNER_SERVED_KINDS) waits for the snapshots to move to other addresses.

/** ASN ranges and (for the sanctioned rule) address → country; both read from the data layer. */
export interface NetworkData {
  asnRanges: AsnRangeSource;
  /** Null: the sanctioned rule cannot run (the manifest says so). */
  countryOf: CountryLookup | null;
  /** What the data is, for the manifest (package versions or layer files). */
  description: string;
}

export interface SecurityCompilation {
  mode: 'upstream' | 'snapshot';
  compiled: CompiledRanges;
  sources: SourceReport[];
  /** Required files that failed: a refresh must not publish. */
  failures: Rejection[];
  sanctionedAsns: { asn: number; country: string }[];
  networkData: string | null;
  /** Newest fetch time of the sources read (the snapshot's date in snapshot mode). */
  newestFetch: Date | null;
}

const ASN_DATA_LICENCE = 'CC-BY-4.0 (ip-location-db ASN: RouteViews, NRO, DB-IP; DB-IP Lite city)';

/** Dropped entries named in a file report's note; the rest are counted. */
const DROPPED_SHOWN = 5;

/** Special-purpose kinds whose blocks may hold a served entry strictly inside them (see the header). */
const INNER_SERVED_KINDS: ReadonlySet<SpecialRange> = new Set(['documentation']);

/** The special-purpose blocks as ranges, to find an entry that contains one. */
const SPECIAL_BLOCK_RANGES = GEOFEED_SPECIAL_BLOCKS.map(([cidr, kind]) => {
  const range = parseCidr(cidr);
  if (range === null) throw new Error(`bad special block ${cidr}`);
  return { cidr, kind, range };
});

/** The special-purpose range of one address of a range, or null. */
function specialAt(family: 4 | 6, value: bigint): SpecialRange | null {
  const ip = parseIp(addressText(family, value));
  return ip === null ? null : specialRange(ip);
}

/** Why a range-list entry is not served, or null when it is (see the header). */
export function implausibleRange(range: IpRange): string | null {
  const cidr = cidrText(range);
  if (cidr === null) return 'not a CIDR block';
  const min = range.family === 4 ? MIN_V4_PREFIX : MIN_V6_PREFIX;
  if (Number(cidr.slice(cidr.indexOf('/') + 1)) < min) return `${cidr} is broader than /${min}`;
  // Blocks are nested or disjoint: an entry is or contains a special block, or lies in one (then its
  // first or last address is special).
  for (const block of SPECIAL_BLOCK_RANGES) {
    if (block.range.family !== range.family) continue;
    if (range.start <= block.range.start && block.range.end <= range.end) {
      const equal = range.start === block.range.start && range.end === block.range.end;
      return `${cidr} ${equal ? 'is' : 'contains'} the special-purpose range ${block.cidr} (${block.kind})`;
    }
  }
  for (const value of [range.start, range.end]) {
    const kind = specialAt(range.family, value);
    if (kind !== null && !INNER_SERVED_KINDS.has(kind))
      return `${cidr} overlaps a special-purpose range (${kind})`;
  }
  return null;
}

/** The entries of a range list that may be served, and its report counting the others. */
export function plausibleEntries(
  report: FileReport,
  entries: readonly IpRange[],
): { report: FileReport; entries: IpRange[] } {
  const kept: IpRange[] = [];
  const reasons: string[] = [];
  for (const range of entries) {
    const reason = implausibleRange(range);
    if (reason === null) kept.push(range);
    else reasons.push(reason);
  }
  if (reasons.length === 0) return { report, entries: kept };
  const shown = reasons.slice(0, DROPPED_SHOWN).join('; ');
  const more = reasons.length > DROPPED_SHOWN ? `; and ${reasons.length - DROPPED_SHOWN} more` : '';
  const note = `${reasons.length} implausible entr${reasons.length === 1 ? 'y' : 'ies'} dropped: ${shown}${more}`;
  return {
    report: {
      ...report,
      count: kept.length,
      dropped: reasons.length,
      note: report.note ? `${report.note}; ${note}` : note,
    },
    entries: kept,
  };
}

function derivedReport(id: string, url: string, count: number | null, note?: string): FileReport {
  return {
    id: `derived:${id}`,
    url,
    status: count === null ? 'unavailable' : 'ok',
    optional: false,
    count: count ?? 0,
    invalid: 0,
    fetchedAt: null,
    ...(note ? { note } : {}),
  };
}

export async function compileSecuritySources(options: {
  fetcher: SourceFetcher;
  networks: NetworkData | null;
  sources?: readonly SecuritySource[];
}): Promise<SecurityCompilation> {
  const { fetcher, networks } = options;
  const sources = options.sources ?? SECURITY_SOURCES;
  const labelled: LabelledRange[] = [];
  const reports: SourceReport[] = [];
  const failures: Rejection[] = [];
  let newest: Date | null = null;
  const seen = (iso: string | null) => {
    if (iso !== null && (newest === null || new Date(iso) > newest)) newest = new Date(iso);
  };

  for (const source of sources) {
    const files: FileReport[] = [];
    if (source.kind === 'ranges') {
      for (const read of await readSources(fetcher, source.files)) {
        const { report, entries } = plausibleEntries(read.report, read.entries);
        files.push(report);
        seen(read.report.fetchedAt);
        if (read.failure) failures.push(read.failure);
        // Nothing plausible at all: refused like a list with no valid entry, even with no version in
        // service to compare with.
        if (!report.optional && report.status === 'ok' && report.count === 0 && (report.dropped ?? 0) > 0)
          failures.push({ id: report.id, reason: `no plausible entries (${report.note})` });
        for (const r of entries) labelled.push({ ...r, flag: source.flag });
      }
    } else {
      const asns = new Set<number>();
      for (const read of await readSources(fetcher, source.files)) {
        files.push(read.report);
        seen(read.report.fetchedAt);
        if (read.failure) failures.push(read.failure);
        for (const asn of read.entries) asns.add(asn);
      }
      if (networks === null) {
        files.push(derivedReport(`${source.id}-ranges`, 'ASN data', null, 'no ASN data available'));
      } else {
        const ranges = rangesOfAsns(networks.asnRanges, asns);
        for (const r of ranges)
          labelled.push({ family: r.family, start: r.start, end: r.end, flag: source.flag });
        files.push(derivedReport(`${source.id}-ranges`, networks.description, ranges.length));
      }
    }
    reports.push({
      id: source.id,
      name: source.name,
      licence: source.licence,
      homepage: source.homepage,
      flag: source.flag,
      ...(source.note ? { note: source.note } : {}),
      files,
    });
  }

  let sanctionedAsns: { asn: number; country: string }[] = [];
  let sanctionedFile: FileReport;
  if (networks === null || networks.countryOf === null) {
    sanctionedFile = derivedReport('sanctioned-ranges', 'ASN data + DB-IP city', null, 'no ASN or city data');
  } else {
    const found = findSanctionedNetworks(networks.asnRanges, networks.countryOf);
    for (const r of found.ranges) {
      labelled.push({ family: r.family, start: r.start, end: r.end, flag: 'isSanctionedNetwork' });
    }
    sanctionedAsns = [...found.asns]
      .map(([asn, country]) => ({ asn, country }))
      .sort((a, b) => a.asn - b.asn);
    sanctionedFile = derivedReport(
      'sanctioned-ranges',
      networks.description,
      found.ranges.length,
      `${found.asns.size} ASes`,
    );
  }
  reports.push({
    id: 'sanctioned-networks',
    name: `Networks mostly located in ${SANCTIONED_COUNTRIES.join(', ')} (derived)`,
    licence: ASN_DATA_LICENCE,
    homepage: 'https://github.com/sapics/ip-location-db',
    flag: 'isSanctionedNetwork',
    note: SANCTIONED_RULE,
    files: [sanctionedFile],
  });

  return {
    mode: fetcher.mode,
    compiled: compileRanges(labelled),
    sources: reports,
    failures,
    sanctionedAsns,
    networkData: networks?.description ?? null,
    newestFetch: newest,
  };
}

/** Hash of the compiled ranges alone (the table encoded without a version). */
export function securityContentHash(compiled: CompiledRanges): string {
  return sha256Hex(encodeRangeTable(tableContent('', compiled)));
}

/** Encodes the table under `version` and writes its manifest. */
export function securityArtifact(
  compilation: Pick<SecurityCompilation, 'compiled' | 'sources' | 'sanctionedAsns' | 'networkData'> & {
    mode: SecurityManifest['mode'];
  },
  version: string,
  builtAt: Date,
  note?: string,
): { table: Uint8Array; manifest: SecurityManifest } {
  const { compiled } = compilation;
  const table = encodeRangeTable(tableContent(version, compiled));
  const manifest: SecurityManifest = {
    kind: 'netintel-security',
    version,
    builtAt: builtAt.toISOString(),
    mode: compilation.mode,
    artifact: {
      file: SECURITY_FILES.table,
      format: RANGE_TABLE_MAGIC,
      formatVersion: RANGE_TABLE_FORMAT_VERSION,
      bytes: table.byteLength,
      sha256: sha256Hex(table),
      ranges: { v4: compiled.v4.length, v6: compiled.v6.length },
    },
    flags: countByFlag(compiled),
    rules: {
      ipsumMinLists: IPSUM_MIN_LISTS,
      sanctionedCountries: [...SANCTIONED_COUNTRIES],
      sanctionedRule: SANCTIONED_RULE,
      maxShrink: MAX_SHRINK,
    },
    networkData: compilation.networkData,
    sanctionedAsns: compilation.sanctionedAsns,
    sources: compilation.sources,
    ...(note ? { note } : {}),
  };
  return { table, manifest };
}

/** Every file report of a manifest's sources (the unit of the shrink rule). */
export function fileReports(sources: readonly SourceReport[]): FileReport[] {
  return sources.flatMap((s) => s.files);
}
