import { sha256Hex } from '../security/artifact.js';
import { type AsnRangeSource, type CountryLookup, rangesOfAsns } from '../security/asn-networks.js';
import {
  type CompiledRanges,
  compileRanges,
  countByFlag,
  type LabelledRange,
  tableContent,
} from '../security/compile.js';
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
        files.push(read.report);
        seen(read.report.fetchedAt);
        if (read.failure) failures.push(read.failure);
        for (const r of read.entries) labelled.push({ ...r, flag: source.flag });
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
