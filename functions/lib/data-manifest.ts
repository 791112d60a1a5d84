// One dataset of the data layer, as recorded in its manifest.json (layers/build/build-data.ts) and
// in the per-area manifests served for attribution (DB-IP, GeoNames, RouteViews and NRO data are
// CC BY 4.0 and require it).
export interface ManifestEntry {
  /** Dataset name, e.g. "dbip-city-lite". */
  name: string;
  /** Version of the source (npm package version or snapshot date). */
  version: string;
  /** Licence as stated upstream, e.g. "CC-BY-4.0". */
  licence: string;
  /** Where the data comes from (URL). */
  source: string;
  /** Number of records written (ranges, points, domains…); 0 for an empty placeholder. */
  count: number;
  /** Free-text remark: which fallback was used, what is missing. */
  note?: string;
}
