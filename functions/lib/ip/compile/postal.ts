// Compiles the GeoNames postal-code CSV (zauberware conversion: country_code, zipcode, place, state,
// state_code, province, province_code, community, community_code, latitude, longitude) into the grid
// index read by ../postal-index.ts. Points are sorted by (country, cell, lat, lon, code), so the same
// input always gives the same bytes.
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
}

interface Point {
  key: number;
  lat: number;
  lon: number;
  code: string;
}

const COUNTRY = /^[A-Z]{2}$/;

/** Compiles CSV lines (the first line is the header). Pass no lines for an empty index. */
export async function compilePostalCsv(
  lines: AsyncIterable<string> | Iterable<string>,
): Promise<PostalCompileResult> {
  const byCountry = new Map<string, Map<string, Point>>();
  let columns: { cc: number; code: number; lat: number; lon: number } | null = null;
  let skipped = 0;
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
    const cc = fields[columns.cc] ?? '';
    const code = (fields[columns.code] ?? '').trim();
    const latText = fields[columns.lat] ?? '';
    const lonText = fields[columns.lon] ?? '';
    const lat = Number(latText);
    const lon = Number(lonText);
    if (
      !COUNTRY.test(cc) ||
      code === '' ||
      latText.trim() === '' ||
      lonText.trim() === '' ||
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
  return encode(byCountry, skipped);
}

function encode(byCountry: Map<string, Map<string, Point>>, skipped: number): PostalCompileResult {
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
