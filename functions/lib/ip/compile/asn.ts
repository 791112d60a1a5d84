// Compiles the ip-location-db ASN CSV (`start_ip,end_ip,asn,org`, inclusive ranges, no header) into
// the range file read by ../asn-reader.ts. Output depends only on the input rows, so builds are
// reproducible.
import { ASN_FORMAT_VERSION, ASN_HEADER_BYTES, ASN_MAGIC } from '../asn-reader.js';
import { parseIp } from '../parse-ip.js';
import { splitCsvLine } from './csv-line.js';

export interface AsnCompileResult {
  file: Buffer;
  /** Ranges written. */
  ranges: number;
  /** Distinct (asn, organisation) pairs. */
  organizations: number;
  /** Rows dropped: malformed, wrong family, reversed, or overlapping an earlier range. */
  skipped: number;
}

interface Range {
  start: number[];
  end: number[];
  asn: number;
  name: string;
}

function words(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 4) {
    out.push(
      (((bytes[i] as number) << 24) |
        ((bytes[i + 1] as number) << 16) |
        ((bytes[i + 2] as number) << 8) |
        (bytes[i + 3] as number)) >>>
        0,
    );
  }
  return out;
}

function compareWords(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number) ? -1 : 1;
  }
  return 0;
}

/** Reads CSV lines of one family and returns the compiled file. */
export async function compileAsnCsv(
  lines: AsyncIterable<string> | Iterable<string>,
  family: 4 | 6,
): Promise<AsnCompileResult> {
  const ranges: Range[] = [];
  let skipped = 0;
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [startText = '', endText = '', asnText = '', name = ''] = splitCsvLine(line);
    const start = parseIp(startText);
    const end = parseIp(endText);
    const asn = Number(asnText);
    if (
      !start ||
      !end ||
      start.lookupFamily !== family ||
      end.lookupFamily !== family ||
      start.family !== family ||
      !Number.isInteger(asn) ||
      asn <= 0 ||
      asn > 0xffffffff
    ) {
      skipped++;
      continue;
    }
    ranges.push({ start: words(start.bytes), end: words(end.bytes), asn, name });
  }
  // Sort by start (stable, so equal starts keep file order), then drop reversed ranges and any
  // range that overlaps the one kept before it: a binary search needs disjoint ranges.
  ranges.sort((a, b) => compareWords(a.start, b.start));
  const kept: Range[] = [];
  for (const r of ranges) {
    const prev = kept[kept.length - 1];
    if (compareWords(r.start, r.end) > 0 || (prev && compareWords(r.start, prev.end) <= 0)) {
      skipped++;
      continue;
    }
    kept.push(r);
  }
  // Organisations are numbered in address order, so row order does not change the bytes.
  const orgIds = new Map<string, number>();
  const orgs: { asn: number; name: string }[] = [];
  const orgOf = kept.map((r) => {
    const key = `${r.asn}\t${r.name}`;
    let org = orgIds.get(key);
    if (org === undefined) {
      org = orgs.length;
      orgs.push({ asn: r.asn, name: r.name });
      orgIds.set(key, org);
    }
    return org;
  });
  return {
    file: encode(kept, orgOf, orgs, family),
    ranges: kept.length,
    organizations: orgs.length,
    skipped,
  };
}

function encode(
  ranges: Range[],
  orgOf: number[],
  orgs: { asn: number; name: string }[],
  family: 4 | 6,
): Buffer {
  const w = family === 4 ? 1 : 4;
  const names = orgs.map((o) => Buffer.from(o.name, 'utf8'));
  const stringBytes = names.reduce((n, b) => n + b.length, 0);
  const wordCount = ranges.length * (2 * w + 1) + orgs.length * 3;
  const file = Buffer.alloc(ASN_HEADER_BYTES + wordCount * 4 + stringBytes);
  file.write(ASN_MAGIC, 0, 'latin1');
  [ASN_FORMAT_VERSION, family, ranges.length, orgs.length, stringBytes, 0].forEach((v, i) => {
    file.writeUInt32LE(v, 8 + 4 * i);
  });
  let at = ASN_HEADER_BYTES;
  const put = (v: number) => {
    file.writeUInt32LE(v, at);
    at += 4;
  };
  for (const r of ranges) for (const v of r.start) put(v);
  for (const r of ranges) for (const v of r.end) put(v);
  for (const org of orgOf) put(org);
  let offset = 0;
  orgs.forEach((o, i) => {
    put(o.asn);
    put(offset);
    put((names[i] as Buffer).length);
    offset += (names[i] as Buffer).length;
  });
  for (const b of names) {
    b.copy(file, at);
    at += b.length;
  }
  return file;
}
