// What the data layer holds, per dataset: written by the build (layers/build/ip-data.ts) to
// `manifest.json` beside the data and served for attribution (the DB-IP, GeoNames, RouteViews and NRO
// data are CC BY 4.0 and require it).

export type { ManifestEntry } from '../data-manifest.js';

/** File names inside the IP data directory. */
export const IP_DATA_FILES = {
  cityV4: 'city-v4.mmdb',
  cityV6: 'city-v6.mmdb',
  asnV4: 'asn-v4.bin',
  asnV6: 'asn-v6.bin',
  subdivisions: 'subdivisions.json',
  postal: 'postal.bin',
  manifest: 'manifest.json',
} as const;
