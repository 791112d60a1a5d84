// Compiles GeoNames postal codes into the grid index read by ../postal-index.ts, from either of two
// formats: the zauberware CSV conversion (country_code, zipcode, place, state, state_code, province,
// province_code, community, community_code, latitude, longitude; compilePostalCsv) or GeoNames' own
// tab-separated dump (allCountries.txt of export/zip: country code, postal code, place name, admin
// name1, admin code1, admin name2, admin code2, admin name3, admin code3, latitude, longitude,
// accuracy; compileGeonamesPostal). Points are sorted by (country, cell, lat, lon, code), so the
// same points always give the same bytes.

import { isPostalCode } from '../postal-code.js';
import {
  COORDINATE_SCALE,
  cellColumn,
  cellKey,
  cellRow,
  POSTAL_FORMAT_VERSION,
  POSTAL_HEADER_BYTES,
  POSTAL_MAGIC,
  packCountry,
} from '../postal-index.js';
import { splitCsvLine } from './csv-line.js';

export interface PostalCompileResult {
  file: Buffer;
  countries: number;
  /** Distinct (country, code, position) points written. */
  points: number;
  skipped: number;
  /** Rows read (kept or skipped; header and blank lines not counted). */
  rows: number;
}

/** One postal row of either format; a malformed one is passed on too (NaN, '') and counted as skipped. */
export interface PostalRow {
  country: string;
  code: string;
  /** Degrees; NaN when blank or not a number. */
  latitude: number;
  longitude: number;
}

export interface PostalCompileOptions {
  /** Rows (kept or skipped) past which the input is rejected with an error. Default: no limit. */
  maxRows?: number;
}

interface Point {
  key: number;
  lat: number;
  lon: number;
  code: string;
}

const COUNTRY = /^[A-Z]{2}$/;

/** A coordinate field: NaN when blank, which Number() would read as 0. */
function coordinate(text: string | undefined): number {
  return text === undefined || text.trim() === '' ? Number.NaN : Number(text);
}

/** Compiles CSV lines (the first line is the header). Pass no lines for an empty index. */
export async function compilePostalCsv(
  lines: AsyncIterable<string> | Iterable<string>,
  options: PostalCompileOptions = {},
): Promise<PostalCompileResult> {
  return compilePostalRows(csvRows(lines), options);
}

async function* csvRows(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<PostalRow> {
  let columns: { cc: number; code: number; lat: number; lon: number } | null = null;
  for await (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    if (line === '') continue;
    const fields = splitCsvLine(line);
    if (!columns) {
      const at = (name: string) => {
        const i = fields.indexOf(name);
        if (i < 0) throw new Error(`postal CSV header lacks column ${name}`);
        return i;
      };
      columns = { cc: at('country_code'), code: at('zipcode'), lat: at('latitude'), lon: at('longitude') };
      continue;
    }
    yield {
      country: fields[columns.cc] ?? '',
      code: fields[columns.code] ?? '',
      latitude: coordinate(fields[columns.lat]),
      longitude: coordinate(fields[columns.lon]),
    };
  }
}

/** Compiles the lines of GeoNames' allCountries.txt (12 tab-separated columns, no header). */
export async function compileGeonamesPostal(
  lines: AsyncIterable<string> | Iterable<string>,
  options: PostalCompileOptions = {},
): Promise<PostalCompileResult> {
  return compilePostalRows(geonamesRows(lines), options);
}

async function* geonamesRows(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<PostalRow> {
  for await (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    if (line === '') continue;
    const fields = line.split('\t');
    yield {
      country: fields[0] ?? '',
      code: fields[1] ?? '',
      latitude: coordinate(fields[9]),
      longitude: coordinate(fields[10]),
    };
  }
}

/** Compiles postal rows of any format: rows without a country, a plausible postal code
 * (../postal-code.ts: no markup or other stray characters is ever served as `postalCode`) or a valid
 * position are skipped, a (country, code, position) seen twice is written once. */
export async function compilePostalRows(
  rows: AsyncIterable<PostalRow> | Iterable<PostalRow>,
  options: PostalCompileOptions = {},
): Promise<PostalCompileResult> {
  const maxRows = options.maxRows ?? Number.POSITIVE_INFINITY;
  const byCountry = new Map<string, Map<string, Point>>();
  let skipped = 0;
  let count = 0;
  for await (const row of rows) {
    if (++count > maxRows) throw new Error(`postal data has more than ${maxRows} rows`);
    const cc = row.country;
    const code = row.code.trim();
    const { latitude: lat, longitude: lon } = row;
    if (
      !COUNTRY.test(cc) ||
      !isPostalCode(code) ||
      !Number.isFinite(lat) ||
      !Number.isFinite(lon) ||
      Math.abs(lat) > 90 ||
      Math.abs(lon) > 180
    ) {
      skipped++;
      continue;
    }
    const latI = Math.round(lat * COORDINATE_SCALE);
    const lonI = Math.round(lon * COORDINATE_SCALE);
    let points = byCountry.get(cc);
    if (!points) {
      points = new Map();
      byCountry.set(cc, points);
    }
    const id = `${code}\t${latI}\t${lonI}`;
    if (!points.has(id)) {
      points.set(id, { key: cellKey(cellRow(lat), cellColumn(lon)), lat: latI, lon: lonI, code });
    }
  }
  return { ...encode(byCountry, skipped), rows: count };
}

function encode(
  byCountry: Map<string, Map<string, Point>>,
  skipped: number,
): Omit<PostalCompileResult, 'rows'> {
  const countries = [...byCountry.keys()].sort();
  const codeIds = new Map<string, number>();
  const codeList: Buffer[] = [];
  const countryRows: number[] = [];
  const cellRows: number[] = [];
  const pointRows: number[] = [];
  let pointCount = 0;
  for (const cc of countries) {
    const points = [...(byCountry.get(cc) as Map<string, Point>).values()].sort(
      (a, b) =>
        a.key - b.key || a.lat - b.lat || a.lon - b.lon || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0),
    );
    const firstCell = cellRows.length / 2;
    let lastKey = -1;
    for (const p of points) {
      if (p.key !== lastKey) {
        cellRows.push(p.key, pointCount);
        lastKey = p.key;
      }
      let id = codeIds.get(p.code);
      if (id === undefined) {
        id = codeList.length;
        codeList.push(Buffer.from(p.code, 'utf8'));
        codeIds.set(p.code, id);
      }
      pointRows.push(p.lat, p.lon, id);
      pointCount++;
    }
    countryRows.push(packCountry(cc), firstCell, cellRows.length / 2 - firstCell);
  }
  const cellCount = cellRows.length / 2;
  cellRows.push(0xffffffff, pointCount); // sentinel: end of the last cell
  const stringBytes = codeList.reduce((n, b) => n + b.length, 0);
  const words = countryRows.length + cellRows.length + pointRows.length + codeList.length * 2;
  const file = Buffer.alloc(POSTAL_HEADER_BYTES + words * 4 + stringBytes);
  file.write(POSTAL_MAGIC, 0, 'latin1');
  [POSTAL_FORMAT_VERSION, countries.length, cellCount, pointCount, codeList.length, stringBytes].forEach(
    (v, i) => {
      file.writeUInt32LE(v, 8 + 4 * i);
    },
  );
  let at = POSTAL_HEADER_BYTES;
  for (const v of countryRows) at = file.writeUInt32LE(v, at);
  for (const v of cellRows) at = file.writeUInt32LE(v, at);
  for (const v of pointRows) at = file.writeInt32LE(v, at);
  let offset = 0;
  for (const b of codeList) {
    at = file.writeUInt32LE(offset, at);
    at = file.writeUInt32LE(b.length, at);
    offset += b.length;
  }
  for (const b of codeList) at += b.copy(file, at);
  return { file, countries: countries.length, points: pointCount, skipped };
}
