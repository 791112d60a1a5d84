// The manifest written beside each compiled artifact: what was built, from which upstream files
// (URL, licence, fetch time, entry count), and the rules applied. It is the attribution record of
// the data, the baseline the next refresh is validated against (validate.ts) and the integrity
// check of the artifact (sha256) when a function swaps a new version in.
import * as z from '../zod.js';
import { SECURITY_FLAGS } from './flags.js';

export const FileReportSchema = z.object({
  /** SourceFile id; derived counts use `derived:<name>`. */
  id: z.string(),
  /** Upstream URL (or, for derived counts, what they were derived from). */
  url: z.string(),
  /** `ok`: read and parsed. `unavailable`: not fetched or not parseable, left out (see note). */
  status: z.enum(['ok', 'unavailable']),
  optional: z.boolean(),
  /** Entries read (ranges, addresses, ASNs or domains); 0 when unavailable. */
  count: z.number().check(z.int(), z.nonnegative()),
  /** Malformed records skipped. */
  invalid: z.number().check(z.int(), z.nonnegative()),
  /**
   * Well-formed entries left out as implausible (a range list's entry broader than the floor or
   * overlapping a special-purpose range: security-build.ts); not counted in `count`.
   */
  dropped: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** When the data was fetched (upstream) or the snapshot file's modification time; null if never. */
  fetchedAt: z.nullable(z.string()),
  note: z.optional(z.string()),
});
export type FileReport = z.infer<typeof FileReportSchema>;

export const SourceReportSchema = z.object({
  id: z.string(),
  name: z.string(),
  licence: z.string(),
  homepage: z.string(),
  flag: z.optional(z.enum(SECURITY_FLAGS as [string, ...string[]])),
  note: z.optional(z.string()),
  files: z.array(FileReportSchema),
});
export type SourceReport = z.infer<typeof SourceReportSchema>;

const FamilyCounts = z.object({
  v4: z.number().check(z.int(), z.nonnegative()),
  v6: z.number().check(z.int(), z.nonnegative()),
});

export const SECURITY_FILES = { table: 'ranges.bin', manifest: 'manifest.json' } as const;

/** The security data directory under the data layer's root (and under a version in S3). */
export function securityDataDir(dataRoot: string): string {
  return `${dataRoot}/security`;
}

export const SecurityManifestSchema = z.object({
  kind: z.literal('netintel-security'),
  /** Data version, also in the artifact's header: `YYYYMMDDTHHMMSSZ-<content hash>`. */
  version: z.string(),
  builtAt: z.string(),
  /** Where the sources were read: upstream URLs, a snapshot directory, or nothing (empty artifact). */
  mode: z.enum(['upstream', 'snapshot', 'none']),
  artifact: z.object({
    file: z.literal(SECURITY_FILES.table),
    format: z.string(),
    formatVersion: z.number().check(z.int()),
    bytes: z.number().check(z.int(), z.nonnegative()),
    sha256: z.string(),
    ranges: FamilyCounts,
  }),
  /** Output ranges carrying each flag. */
  flags: z.record(z.string(), FamilyCounts),
  rules: z.object({
    ipsumMinLists: z.number().check(z.int()),
    sanctionedCountries: z.array(z.string()),
    sanctionedRule: z.string(),
    maxShrink: z.number(),
  }),
  /** ASN ranges and city data used for the ASN expansion and the sanctioned rule (null: none). */
  networkData: z.nullable(z.string()),
  sanctionedAsns: z.array(z.object({ asn: z.number().check(z.int()), country: z.string() })),
  sources: z.array(SourceReportSchema),
  note: z.optional(z.string()),
});
export type SecurityManifest = z.infer<typeof SecurityManifestSchema>;

/** Parses a manifest file; throws (zod error) when it is not one. */
export function parseSecurityManifest(text: string): SecurityManifest {
  return SecurityManifestSchema.parse(JSON.parse(text));
}
