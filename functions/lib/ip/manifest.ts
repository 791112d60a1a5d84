import type { ManifestEntry } from '../data-manifest.js';
import * as z from '../zod.js';

// What the IP data directory holds: `manifest.json` beside the files, written by the layer build
// (layers/build/ip-data.ts) and by the refresh (../refresh/ip-refresh.ts), read by IpData to open
// each source with its reader (sources.ts) and served by GET /v1/data for provenance and attribution.

export type { ManifestEntry } from '../data-manifest.js';

/** File names inside the IP data directory. */
export const IP_DATA_FILES = {
  cityV4: 'city-v4.mmdb',
  cityV6: 'city-v6.mmdb',
  /** A single-file location database (MaxMind City schema or IPinfo Lite). */
  location: 'location.mmdb',
  asnV4: 'asn-v4.bin',
  asnV6: 'asn-v6.bin',
  /** A network database in the MaxMind ASN schema (IPinfo Lite answers from location.mmdb). */
  network: 'network.mmdb',
  subdivisions: 'subdivisions.json',
  postal: 'postal.bin',
  geofeed: 'geofeed.json',
  manifest: 'manifest.json',
} as const;

/** The last refresh's checks of its upstreams (refresh/ip-refresh.ts IpCheck), beside the versions. */
export const IP_CHECKS_FILE = 'last-check.json';

/** One check of an upstream by the last IP refresh, as IP_CHECKS_FILE records it. */
export interface IpCheckRecord {
  /** The dataset's name, `<role>: <edition>` for a database that failed, `geofeed <origin>`. */
  name: string;
  checkedAt: string;
  /** downloaded, unchanged, fetched or failed. */
  status: string;
  note?: string;
}

const ChecksFile = z.object({
  checks: z.array(
    z.looseObject({
      name: z.string(),
      checkedAt: z.string(),
      status: z.string(),
      note: z.optional(z.string()),
    }),
  ),
});

/** Parses IP_CHECKS_FILE (`{"checks": [...]}`); throws on anything else. */
export function parseIpChecks(text: string): IpCheckRecord[] {
  return ChecksFile.parse(JSON.parse(text)).checks.map(({ name, checkedAt, status, note }) => ({
    name,
    checkedAt,
    status,
    ...(note === undefined ? {} : { note }),
  }));
}

/** The IP data's manifest: a version that names the set of files, and one entry per dataset. */
export interface IpManifest {
  /** `YYYYMMDDTHHMMSSZ-<hash>` (../refresh/version.ts); a newer one is swapped in by running functions. */
  version: string;
  datasets: ManifestEntry[];
}

const Entry = z.looseObject({
  name: z.string(),
  version: z.string(),
  licence: z.string(),
  source: z.string(),
  count: z.number(),
});

const ManifestFile = z.union([
  z.object({ version: z.string(), datasets: z.array(Entry) }),
  // Layers of format 2 and before: a bare list (their data is DB-IP Lite and the compiled ASN files).
  z.pipe(
    z.array(Entry),
    z.transform((datasets) => ({ version: '19700101T000000Z-0', datasets })),
  ),
]);

/** Parses `manifest.json`; throws on a file that is neither format. */
export function parseIpManifest(text: string): IpManifest {
  const parsed = ManifestFile.parse(JSON.parse(text));
  return { version: parsed.version, datasets: parsed.datasets as ManifestEntry[] };
}

/** The dataset of a role, or undefined. */
export function datasetOf(
  manifest: IpManifest,
  role: NonNullable<ManifestEntry['role']>,
): ManifestEntry | undefined {
  return manifest.datasets.find((d) => d.role === role);
}
