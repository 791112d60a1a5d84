// Nearest postal code to a point, within one country: postalCode comes from this index keyed on
// country and coordinates, because the default location database has no postal data, and is null
// where the index has no coverage (docs/api.md: IP lookup and visitor geolocation). Built by
// compile/postal.ts from the GeoNames postal dump.
//
// Points are bucketed in a fixed grid of CELL_DEGREES × CELL_DEGREES cells; per country the cells
// are sorted by key, so a lookup binary-searches the few cells within reach of the radius.
//
// Layout, all integers 32-bit little-endian:
//   header (32 bytes): magic "NIPOST01", version, countryCount, cellCount, pointCount, codeCount, stringBytes
//   countries countryCount × 3 words: the two ASCII letters packed (c0 << 8 | c1), first cell, cell count
//   cells     (cellCount + 1) × 2 words: cell key, first point (a sentinel closes the last cell)
//   points    pointCount × 3 words: latitude and longitude (signed, 1e-5 degrees), code index
//   codes     codeCount × 2 words: byte offset and length in the string blob
//   strings   UTF-8 postal codes

import { lastAtOrBelow } from '../binary-search.js';
import { aligned, LITTLE_ENDIAN } from '../compiled-file.js';

export const POSTAL_MAGIC = 'NIPOST01';
export const POSTAL_FORMAT_VERSION = 1;
export const POSTAL_HEADER_BYTES = 32;
export const CELL_DEGREES = 0.2;
export const GRID_COLUMNS = 360 / CELL_DEGREES;
export const GRID_ROWS = 180 / CELL_DEGREES;
/** Coordinates are stored as integers of this many units per degree (about 1.1 m). */
export const COORDINATE_SCALE = 1e5;
/** Default reach of a lookup: a city centroid further than this from every postal point gets null. */
export const DEFAULT_MAX_DISTANCE_KM = 15;

const KM_PER_DEGREE = 111.195; // mean Earth radius 6371.0 km × π / 180

export function cellRow(lat: number): number {
  return Math.min(GRID_ROWS - 1, Math.max(0, Math.floor((lat + 90) / CELL_DEGREES)));
}

export function cellColumn(lon: number): number {
  const c = Math.floor((lon + 180) / CELL_DEGREES);
  return ((c % GRID_COLUMNS) + GRID_COLUMNS) % GRID_COLUMNS;
}

export function cellKey(row: number, column: number): number {
  return row * GRID_COLUMNS + column;
}

export function packCountry(country: string): number {
  return (country.charCodeAt(0) << 8) | country.charCodeAt(1);
}

const decoder = new TextDecoder();

export class PostalIndex {
  readonly pointCount: number;
  private readonly countries = new Map<string, { firstCell: number; cellCount: number }>();
  private readonly cells: Uint32Array;
  private readonly points: Int32Array;
  private readonly codes: Uint32Array;
  private readonly strings: Uint8Array;
  private readonly codeText: (string | undefined)[];

  constructor(file: Uint8Array) {
    if (!LITTLE_ENDIAN) throw new Error('the postal index needs a little-endian platform');
    const buf = aligned(file);
    if (buf.byteLength < POSTAL_HEADER_BYTES || decoder.decode(buf.subarray(0, 8)) !== POSTAL_MAGIC) {
      throw new Error('not a postal index file');
    }
    const [version, countryCount, cellCount, pointCount, codeCount, stringBytes] = new Uint32Array(
      buf.buffer,
      buf.byteOffset + 8,
      6,
    ) as unknown as number[];
    if (version !== POSTAL_FORMAT_VERSION) throw new Error(`unsupported postal index version ${version}`);
    let at = buf.byteOffset + POSTAL_HEADER_BYTES;
    const countries = new Uint32Array(buf.buffer, at, (countryCount as number) * 3);
    at += countries.byteLength;
    this.cells = new Uint32Array(buf.buffer, at, ((cellCount as number) + 1) * 2);
    at += this.cells.byteLength;
    this.points = new Int32Array(buf.buffer, at, (pointCount as number) * 3);
    at += this.points.byteLength;
    this.codes = new Uint32Array(buf.buffer, at, (codeCount as number) * 2);
    at += this.codes.byteLength;
    this.strings = new Uint8Array(buf.buffer, at, stringBytes as number);
    if (at + (stringBytes as number) !== buf.byteOffset + buf.byteLength) {
      throw new Error('postal index length does not match its header');
    }
    for (let i = 0; i < (countryCount as number); i++) {
      const packed = countries[i * 3] as number;
      const cc = String.fromCharCode(packed >> 8, packed & 0xff);
      this.countries.set(cc, {
        firstCell: countries[i * 3 + 1] as number,
        cellCount: countries[i * 3 + 2] as number,
      });
    }
    this.pointCount = pointCount as number;
    this.codeText = new Array(codeCount as number);
  }

  /** Countries the index covers, sorted. */
  coveredCountries(): string[] {
    return [...this.countries.keys()].sort();
  }

  /**
   * The postal code of the nearest indexed point in `country` within `maxKm` of (lat, lon), or null
   * when the country is not covered or nothing is that close. Distances use the equirectangular
   * approximation, within 0.1% of the great-circle distance at this range.
   */
  nearest(country: string, lat: number, lon: number, maxKm = DEFAULT_MAX_DISTANCE_KM): string | null {
    const entry = this.countries.get(country);
    if (!entry || !Number.isFinite(lat) || !Number.isFinite(lon)) return null;
    const dLat = maxKm / KM_PER_DEGREE;
    const cosLat = Math.max(Math.cos(((Math.abs(lat) + dLat) * Math.PI) / 180), 1e-6);
    const dLon = dLat / cosLat;
    const rowFrom = cellRow(lat - dLat);
    const rowTo = cellRow(lat + dLat);
    const spanColumns = Math.min(GRID_COLUMNS, Math.ceil((2 * dLon) / CELL_DEGREES) + 2);
    const colFrom = cellColumn(lon - dLon);
    const cosMid = Math.cos((lat * Math.PI) / 180);
    const limit = (maxKm / KM_PER_DEGREE) ** 2;
    let best = -1;
    let bestD = limit;
    for (let row = rowFrom; row <= rowTo; row++) {
      for (let k = 0; k < spanColumns; k++) {
        const cell = this.findCell(
          entry.firstCell,
          entry.cellCount,
          cellKey(row, (colFrom + k) % GRID_COLUMNS),
        );
        if (cell < 0) continue;
        const from = this.cells[cell * 2 + 1] as number;
        const to = this.cells[cell * 2 + 3] as number;
        for (let p = from; p < to; p++) {
          const pLat = (this.points[p * 3] as number) / COORDINATE_SCALE;
          const pLon = (this.points[p * 3 + 1] as number) / COORDINATE_SCALE;
          let dx = Math.abs(pLon - lon);
          if (dx > 180) dx = 360 - dx;
          dx *= cosMid;
          const dy = pLat - lat;
          const d = dx * dx + dy * dy;
          if (d <= bestD) {
            if (d === bestD && best >= 0 && this.code(best) <= this.code(p)) continue;
            best = p;
            bestD = d;
          }
        }
      }
    }
    return best < 0 ? null : this.code(best);
  }

  private code(point: number): string {
    const index = this.points[point * 3 + 2] as number;
    let text = this.codeText[index];
    if (text === undefined) {
      const offset = this.codes[index * 2] as number;
      text = decoder.decode(this.strings.subarray(offset, offset + (this.codes[index * 2 + 1] as number)));
      this.codeText[index] = text;
    }
    return text;
  }

  private findCell(first: number, count: number, key: number): number {
    const cells = this.cells;
    const at = first + lastAtOrBelow(count, (i) => (cells[(first + i) * 2] as number) <= key);
    return at >= first && cells[at * 2] === key ? at : -1;
  }
}
