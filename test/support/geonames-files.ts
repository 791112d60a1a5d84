import { strToU8, zipSync } from 'fflate';
import type { UpstreamMirror } from './upstream-mirror.js';

// GeoNames' two dumps as the refresh fetches them, small: the postal zip (allCountries.txt, 12
// tab-separated columns) and the admin1 names. Rows in GeoNames' own format, with coordinates of
// real postal codes (GeoNames, CC BY 4.0).

export const GEONAMES_POSTAL_URL = 'https://download.geonames.org/export/zip/allCountries.zip';
export const GEONAMES_ADMIN1_URL = 'https://download.geonames.org/export/dump/admin1CodesASCII.txt';

/** country, code, place, admin1 name, admin1 code, admin2 name/code, admin3 name/code, lat, lon, accuracy. */
export type PostalRow = readonly string[];

export const PARIS_75001: PostalRow = [
  'FR',
  '75001',
  'Paris 01',
  'Île-de-France',
  '11',
  'Paris',
  '75',
  'Paris',
  '751',
  '48.8592',
  '2.3417',
  '5',
];
export const PARIS_75002: PostalRow = [
  'FR',
  '75002',
  'Paris 02',
  'Île-de-France',
  '11',
  'Paris',
  '75',
  'Paris',
  '751',
  '48.8677',
  '2.3411',
  '5',
];
export const LONDON_EC1A: PostalRow = [
  'GB',
  'EC1A',
  'London',
  'England',
  'ENG',
  'Greater London',
  'GLA',
  'City of London',
  '',
  '51.5194',
  '-0.0977',
  '4',
];

/** allCountries.zip holding these rows. */
export function postalZip(rows: readonly PostalRow[]): Uint8Array {
  return zipSync({ 'allCountries.txt': strToU8(`${rows.map((r) => r.join('\t')).join('\n')}\n`) });
}

/** admin1CodesASCII.txt lines: `CC.code`, name, ASCII name, geonameid. */
export const ADMIN1 = 'FR.11\tÎle-de-France\tIle-de-France\t3012874\nGB.ENG\tEngland\tEngland\t6269131\n';

/** Serves both dumps from a mirror of the upstreams. */
export function serveGeonames(mirror: UpstreamMirror, rows: readonly PostalRow[]): void {
  mirror.serve(GEONAMES_POSTAL_URL, postalZip(rows));
  mirror.serve(GEONAMES_ADMIN1_URL, ADMIN1);
}
