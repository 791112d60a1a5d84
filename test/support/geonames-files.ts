import { strToU8, zipSync } from 'fflate';
import type { UpstreamMirror } from './upstream-mirror.js';

// GeoNames' two dumps as the refresh fetches them, small: the postal zip (allCountries.txt, 12
// tab-separated columns) and the admin1 names. Rows in GeoNames' own format, with coordinates of
// real postal codes (GeoNames, CC BY 4.0). Beside them, the refresh's third file of that step, a few
// entries of Debian iso-codes' ISO 3166-2 list in its own format (codes and names are ISO 3166-2).

export const GEONAMES_POSTAL_URL = 'https://download.geonames.org/export/zip/allCountries.zip';
export const GEONAMES_ADMIN1_URL = 'https://download.geonames.org/export/dump/admin1CodesASCII.txt';
export const ISO_CODES_URL =
  'https://salsa.debian.org/iso-codes-team/iso-codes/-/raw/main/data/iso_3166-2.json';

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

/** iso_3166-2.json entries: a few countries' subdivisions, hand-picked (30 entries). */
export const ISO_SUBDIVISIONS = [
  { code: 'AD-02', name: 'Canillo', type: 'Parish' },
  { code: 'AD-03', name: 'Encamp', type: 'Parish' },
  { code: 'AD-04', name: 'La Massana', type: 'Parish' },
  { code: 'AD-05', name: 'Ordino', type: 'Parish' },
  { code: 'AD-06', name: 'Sant Julià de Lòria', type: 'Parish' },
  { code: 'AD-07', name: 'Andorra la Vella', type: 'Parish' },
  { code: 'AD-08', name: 'Escaldes-Engordany', type: 'Parish' },
  { code: 'AZ-NX', name: 'Naxçıvan', type: 'Autonomous republic' },
  { code: 'AZ-BAB', name: 'Babək', parent: 'NX', type: 'Rayon' },
  { code: 'DE-BE', name: 'Berlin', type: 'Land' },
  { code: 'DE-BY', name: 'Bayern', type: 'Land' },
  { code: 'DE-HH', name: 'Hamburg', type: 'Land' },
  { code: 'EE-37', name: 'Harjumaa', type: 'County' },
  { code: 'EE-52', name: 'Järvamaa', type: 'County' },
  { code: 'FR-ARA', name: 'Auvergne-Rhône-Alpes', type: 'Metropolitan region' },
  { code: 'FR-IDF', name: 'Île-de-France', type: 'Metropolitan region' },
  { code: 'FR-PAC', name: 'Provence-Alpes-Côte-d’Azur', type: 'Metropolitan region' },
  { code: 'GB-ENG', name: 'England', type: 'Country' },
  { code: 'GB-LND', name: 'London, City of', parent: 'GB-ENG', type: 'City corporation' },
  { code: 'GB-NIR', name: 'Northern Ireland', type: 'Province' },
  { code: 'GB-SCT', name: 'Scotland', type: 'Country' },
  { code: 'GB-WLS', name: 'Wales [Cymru GB-CYM]', type: 'Country' },
  { code: 'JP-13', name: 'Tokyo', type: 'Prefecture' },
  { code: 'JP-27', name: 'Osaka', type: 'Prefecture' },
  { code: 'NL-NH', name: 'Noord-Holland', type: 'Province' },
  { code: 'NL-ZH', name: 'Zuid-Holland', type: 'Province' },
  { code: 'US-CA', name: 'California', type: 'State' },
  { code: 'US-NY', name: 'New York', type: 'State' },
  { code: 'US-TX', name: 'Texas', type: 'State' },
  { code: 'US-WA', name: 'Washington', type: 'State' },
] as const;

/** iso_3166-2.json as iso-codes publishes it. */
export const ISO_3166_2 = `${JSON.stringify({ '3166-2': ISO_SUBDIVISIONS }, null, 2)}\n`;

/** Serves both dumps and the iso-codes list from a mirror of the upstreams. */
export function serveGeonames(mirror: UpstreamMirror, rows: readonly PostalRow[]): void {
  mirror.serve(GEONAMES_POSTAL_URL, postalZip(rows));
  mirror.serve(GEONAMES_ADMIN1_URL, ADMIN1);
  mirror.serve(ISO_CODES_URL, ISO_3166_2);
}
