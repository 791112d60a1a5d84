// ASN → address ranges, for the lists that name networks rather than ranges (X4BNet's hosting ASNs)
// and for the sanctioned-network rule (sanctioned.ts). The ranges come from the ip-location-db ASN
// data, either as its CSV (`start_ip,end_ip,asn,org`, npm @ip-location-db/asn) or as the range file
// the data layer already holds (`ip/asn-v{4,6}.bin`, format in ../ip/asn-reader.ts), which is what
// the refresh Lambda reads. Country of an address: the DB-IP city MMDBs of the layer (or any
// `start,end,country` range CSV, the ip-location-db country layout, which the fixtures use).
import { Reader, type Response } from 'maxmind';
import { ASN_FORMAT_VERSION, ASN_HEADER_BYTES, ASN_MAGIC } from '../ip/asn-reader.js';
import { compileAsnCsv } from '../ip/compile/asn.js';
import { splitCsvLine } from '../ip/compile/csv-line.js';
import { addressText, type IpRange, parseAddress } from './ip-range.js';

export interface AsnRange extends IpRange {
  asn: number;
}

/** Re-iterable ranges of every ASN (the sanctioned rule walks them twice). */
export interface AsnRangeSource {
  ranges(): Iterable<AsnRange>;
  readonly rangeCount: number;
}

/** Country code (ISO 3166-1 alpha-2) of an address, or null when unknown. */
export type CountryLookup = (family: 4 | 6, address: bigint) => string | null;

const decoder = new TextDecoder();

interface AsnFileView {
  family: 4 | 6;
  count: number;
  starts: Uint32Array;
  ends: Uint32Array;
  orgIndex: Uint32Array;
  orgs: Uint32Array;
}

/** Reads the header and arrays of a compiled ASN file (../ip/asn-reader.ts layout). */
function viewAsnFile(file: Uint8Array): AsnFileView {
  const buf = file.byteOffset % 4 === 0 ? file : new Uint8Array(file);
  if (buf.byteLength < ASN_HEADER_BYTES || decoder.decode(buf.subarray(0, 8)) !== ASN_MAGIC) {
    throw new Error('not a compiled ASN range file');
  }
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const version = view.getUint32(8, true);
  const family = view.getUint32(12, true);
  const count = view.getUint32(16, true);
  const orgCount = view.getUint32(20, true);
  if (version !== ASN_FORMAT_VERSION || (family !== 4 && family !== 6)) {
    throw new Error(`unsupported ASN file (version ${version}, family ${family})`);
  }
  const words = family === 4 ? 1 : 4;
  let at = buf.byteOffset + ASN_HEADER_BYTES;
  const take = (n: number) => {
    const out = new Uint32Array(buf.buffer, at, n);
    at += n * 4;
    return out;
  };
  const starts = take(count * words);
  const ends = take(count * words);
  const orgIndex = take(count);
  const orgs = take(orgCount * 3);
  return { family, count, starts, ends, orgIndex, orgs };
}

function* rangesOfView(v: AsnFileView): Generator<AsnRange> {
  const words = v.family === 4 ? 1 : 4;
  const value = (table: Uint32Array, i: number) => {
    if (words === 1) return BigInt(table[i] as number);
    let out = 0n;
    for (let w = 0; w < 4; w++) out = (out << 32n) | BigInt(table[i * 4 + w] as number);
    return out;
  };
  for (let i = 0; i < v.count; i++) {
    const org = v.orgIndex[i] as number;
    yield {
      family: v.family,
      start: value(v.starts, i),
      end: value(v.ends, i),
      asn: v.orgs[org * 3] as number,
    };
  }
}

/** ASN ranges from compiled range files (the data layer's ip/asn-v4.bin and ip/asn-v6.bin). */
export function asnRangesFromCompiled(files: readonly Uint8Array[]): AsnRangeSource {
  const views = files.map(viewAsnFile);
  return {
    rangeCount: views.reduce((n, v) => n + v.count, 0),
    *ranges() {
      for (const v of views) yield* rangesOfView(v);
    },
  };
}

/** ASN ranges from the ip-location-db CSVs (compiled in memory with the layer's own compiler). */
export async function asnRangesFromCsv(
  v4Lines: AsyncIterable<string> | Iterable<string>,
  v6Lines: AsyncIterable<string> | Iterable<string>,
): Promise<AsnRangeSource> {
  const v4 = await compileAsnCsv(v4Lines, 4);
  const v6 = await compileAsnCsv(v6Lines, 6);
  return asnRangesFromCompiled([v4.file, v6.file]);
}

/** Decoded records kept per data offset: ASN ranges hit the same few city records again and again. */
function recordCache(max: number) {
  const map = new Map<number | string, unknown>();
  return {
    get: (key: number | string) => map.get(key),
    set: (key: number | string, value: unknown) => {
      if (map.size >= max) map.clear();
      map.set(key, value);
    },
  };
}

/** Country lookup over the DB-IP city MMDBs (one file per family; record field `country_code`). */
export function countryLookupFromMmdb(v4File: Buffer, v6File: Buffer): CountryLookup {
  const readers = {
    4: new Reader<Response>(v4File, { cache: recordCache(50_000) }),
    6: new Reader<Response>(v6File, { cache: recordCache(50_000) }),
  };
  return (family, address) => {
    const record = readers[family].get(addressText(family, address)) as { country_code?: unknown } | null;
    const code = record?.country_code;
    return typeof code === 'string' && code !== '' ? code : null;
  };
}

/**
 * Country lookup over `start,end,country` rows (the ip-location-db country CSV layout). Rows must not
 * overlap; lines that do not parse are skipped.
 */
export function countryLookupFromCsv(lines: Iterable<string>): CountryLookup {
  const rows: Record<4 | 6, { start: bigint; end: bigint; country: string }[]> = { 4: [], 6: [] };
  for (const line of lines) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const [startText = '', endText = '', country = ''] = splitCsvLine(line.trim());
    const start = parseAddress(startText);
    const end = parseAddress(endText);
    if (!start || !end || start.family !== end.family || country === '') continue;
    rows[start.family].push({ start: start.value, end: end.value, country });
  }
  for (const family of [4, 6] as const) rows[family].sort((a, b) => (a.start < b.start ? -1 : 1));
  return (family, address) => {
    const table = rows[family];
    let lo = 0;
    let hi = table.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((table[mid] as { start: bigint }).start <= address) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    const row = table[found];
    return row !== undefined && address <= row.end ? row.country : null;
  };
}

/** The ranges of the given ASNs, with the ASN, in the order of the source. */
export function rangesOfAsns(source: AsnRangeSource, asns: ReadonlySet<number>): AsnRange[] {
  const out: AsnRange[] = [];
  if (asns.size === 0) return out;
  for (const r of source.ranges()) if (asns.has(r.asn)) out.push(r);
  return out;
}
