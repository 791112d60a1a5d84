// ASN → address ranges, for the lists that name networks rather than ranges (X4BNet's hosting ASNs)
// and for the sanctioned-network rule (sanctioned.ts). The ranges come from the ip-location-db ASN
// data, either as its CSV (`start_ip,end_ip,asn,org`, npm @ip-location-db/asn) or as the range file
// the data layer already holds (`ip/asn-v{4,6}.bin`, format in ../ip/asn-reader.ts), which is what
// the refresh Lambda reads. Country of an address: the DB-IP city MMDBs of the layer (or any
// `start,end,country` range CSV, the ip-location-db country layout, which the fixtures use).
import { Reader, type Response } from 'maxmind';
import { lastAtOrBelow } from '../binary-search.js';
import { boundedCache } from '../cache/bounded-cache.js';
import { AsnTable } from '../ip/asn-reader.js';
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

/** ASN ranges from compiled range files (the data layer's ip/asn-v4.bin and ip/asn-v6.bin). */
export function asnRangesFromCompiled(files: readonly Uint8Array[]): AsnRangeSource {
  const tables = files.map((file) => new AsnTable(file));
  return {
    rangeCount: tables.reduce((n, t) => n + t.rangeCount, 0),
    *ranges() {
      for (const t of tables) yield* t.ranges();
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

/** Address bits a family's addresses have. */
const ADDRESS_BITS = { 4: 32n, 6: 128n } as const;

/**
 * Country lookup over the DB-IP city MMDBs (one file per family; record field `country_code`). The
 * network of the last answer is kept: the sanctioned rule asks in address order, and an ASN range's
 * end and the next range's start mostly fall in one network of the MMDB, which then answers without
 * a lookup.
 */
export function countryLookupFromMmdb(v4File: Buffer, v6File: Buffer): CountryLookup {
  // More records than the API's city cache (25,000 a generation, 50,000 in all): ASN ranges hit the
  // same few city records again and again.
  const readers = {
    4: new Reader<Response>(v4File, { cache: boundedCache(25_000) }),
    6: new Reader<Response>(v6File, { cache: boundedCache(25_000) }),
  };
  let last: { family: 4 | 6; first: bigint; last: bigint; code: string | null } | undefined;
  return (family, address) => {
    if (last?.family === family && address >= last.first && address <= last.last) return last.code;
    const [record, prefixLength] = readers[family].getWithPrefixLength(addressText(family, address));
    const value = (record as { country_code?: unknown } | null)?.country_code;
    const code = typeof value === 'string' && value !== '' ? value : null;
    const hostBits = ADDRESS_BITS[family] - BigInt(prefixLength);
    const first = (address >> hostBits) << hostBits;
    last = { family, first, last: first + (1n << hostBits) - 1n, code };
    return code;
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
    const row = table[lastAtOrBelow(table.length, (i) => (table[i] as { start: bigint }).start <= address)];
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
