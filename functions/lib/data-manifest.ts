// One dataset of the data layer, as recorded in its manifest.json (layers/build/build-data.ts) and
// in the per-area manifests served for attribution (DB-IP, GeoNames, RouteViews and NRO data are
// CC BY 4.0 and require it) and by GET /v1/data.
export interface ManifestEntry {
  /** Dataset name, e.g. "dbip-city-lite". */
  name: string;
  /** Version of the source (npm package version, snapshot date, database build date). */
  version: string;
  /** Licence as stated upstream, e.g. "CC-BY-4.0". */
  licence: string;
  /** Where the data comes from (URL). */
  source: string;
  /** Number of records written (ranges, networks, points, domains…); 0 for an empty placeholder. */
  count: number;
  /** Free-text remark: which fallback was used, what is missing. */
  note?: string;
  /** What the dataset answers, for the IP data (ip/manifest.ts). */
  role?: 'location' | 'network' | 'postal' | 'subdivisions' | 'geofeed';
  /** Reader of its files (functions/lib/ip/sources.ts), for the location and network roles. */
  schema?: string;
  /** Its files, relative to the area's directory. */
  files?: string[];
  /** The database's own type or edition ("GeoLite2-City"). */
  edition?: string;
  /** When the source built it (a database's build epoch), ISO 8601. */
  builtAt?: string;
  /** When the upstream was last asked whether a newer copy exists, ISO 8601. */
  checkedAt?: string;
  /** The upstream's Last-Modified, for conditional downloads. */
  lastModified?: string;
  /** SHA-256 of what was downloaded, as published upstream. */
  sha256?: string;
  /**
   * SHA-256 (hex) of each of its files as published, by file name: the IP refresh records it, and
   * a reader refuses a file that does not match (a refresh killed between two renames left a mix).
   * Absent from manifests written before it was recorded (nothing is checked then).
   */
  fileSha256?: Record<string, string>;
  /** The credit line the licence asks for, shown in /docs, the README and GET /v1/data. */
  attribution?: string;
  /** True when the dataset is empty because its source was not available (a fresh clone, an upstream down). */
  missing?: boolean;
}
