// Reader of the compiled ASN range file (built by compile/asn.ts from the ip-location-db ASN CSV).
// No MMDB writer exists on npm, so the layer stores ASN data as sorted, non-overlapping inclusive
// ranges in typed arrays and answers with a binary search: O(log n), no parsing at load beyond
// wrapping the buffer.
//
// Layout, all integers unsigned 32-bit little-endian:
//   header (32 bytes): magic "NIASN001", version, family (4|6), rangeCount, orgCount, stringBytes, 0
//   starts   rangeCount × W words (W = 1 for IPv4, 4 for IPv6: the address as four big-endian-ordered words)
//   ends     rangeCount × W words (inclusive)
//   orgIndex rangeCount words: index into the organisation table
//   orgs     orgCount × 3 words: asn, byte offset and byte length of the name in the string blob
//   strings  UTF-8 names

import { aligned, LITTLE_ENDIAN } from '../compiled-file.js';
import type { ParsedIp } from './parse-ip.js';
import { addressWord, addressWords, rangeHoldingV4, rangeHoldingV6 } from './range-search.js';

export const ASN_MAGIC = 'NIASN001';
export const ASN_FORMAT_VERSION = 1;
export const ASN_HEADER_BYTES = 32;

export interface AsnRecord {
  asn: number;
  organization: string | null;
}

/** One range of the file with its AS number; `end` inclusive. */
export interface AsnFileRange {
  family: 4 | 6;
  start: bigint;
  end: bigint;
  asn: number;
}

const decoder = new TextDecoder();

export class AsnTable {
  readonly family: 4 | 6;
  readonly rangeCount: number;
  private readonly words: number;
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;
  private readonly orgIndex: Uint32Array;
  private readonly orgs: Uint32Array;
  private readonly strings: Uint8Array;
  /** Decoded records by organisation index, shared by every lookup that hits them. */
  private readonly records: (Readonly<AsnRecord> | undefined)[];
  private byAsn: Map<number, number> | undefined;
  /** Scratch key of the IPv6 search (a lookup is synchronous, so one per table suffices). */
  private readonly key = new Uint32Array(4);

  constructor(file: Uint8Array) {
    if (!LITTLE_ENDIAN) throw new Error('the ASN range file needs a little-endian platform');
    const buf = aligned(file);
    if (buf.byteLength < ASN_HEADER_BYTES || decoder.decode(buf.subarray(0, 8)) !== ASN_MAGIC) {
      throw new Error('not a compiled ASN range file');
    }
    const header = new Uint32Array(buf.buffer, buf.byteOffset + 8, 6);
    const [version, family, rangeCount, orgCount, stringBytes] = header as unknown as number[];
    if (version !== ASN_FORMAT_VERSION) throw new Error(`unsupported ASN file version ${version}`);
    if (family !== 4 && family !== 6) throw new Error(`bad ASN file family ${family}`);
    this.family = family;
    this.rangeCount = rangeCount as number;
    this.words = family === 4 ? 1 : 4;
    let at = buf.byteOffset + ASN_HEADER_BYTES;
    const take = (count: number) => {
      const view = new Uint32Array(buf.buffer, at, count);
      at += count * 4;
      return view;
    };
    this.starts = take(this.rangeCount * this.words);
    this.ends = take(this.rangeCount * this.words);
    this.orgIndex = take(this.rangeCount);
    this.orgs = take((orgCount as number) * 3);
    this.strings = new Uint8Array(buf.buffer, at, stringBytes as number);
    if (at + (stringBytes as number) !== buf.byteOffset + buf.byteLength) {
      throw new Error('ASN file length does not match its header');
    }
    this.records = new Array(orgCount as number);
  }

  private record(org: number): Readonly<AsnRecord> {
    let rec = this.records[org];
    if (rec === undefined) {
      const offset = this.orgs[org * 3 + 1] as number;
      const length = this.orgs[org * 3 + 2] as number;
      rec = Object.freeze({
        asn: this.orgs[org * 3] as number,
        organization: length === 0 ? null : decoder.decode(this.strings.subarray(offset, offset + length)),
      });
      this.records[org] = rec;
    }
    return rec;
  }

  /** The ASN record whose range holds the address, or null. The address family must match the file. */
  lookup(ip: ParsedIp): Readonly<AsnRecord> | null {
    const b = ip.bytes;
    if (b.length !== (this.family === 4 ? 4 : 16)) return null;
    const found =
      this.family === 4
        ? rangeHoldingV4(this.starts, this.ends, this.rangeCount, addressWord(b))
        : rangeHoldingV6(this.starts, this.ends, this.rangeCount, addressWords(b, this.key));
    return found < 0 ? null : this.record(this.orgIndex[found] as number);
  }

  /** Every range in file order (address order), for the security compiler's ASN expansions. */
  *ranges(): Generator<AsnFileRange> {
    for (let i = 0; i < this.rangeCount; i++) {
      yield {
        family: this.family,
        start: this.address(this.starts, i),
        end: this.address(this.ends, i),
        asn: this.orgs[(this.orgIndex[i] as number) * 3] as number,
      };
    }
  }

  private address(table: Uint32Array, index: number): bigint {
    let out = 0n;
    for (let w = 0; w < this.words; w++) out = (out << 32n) | BigInt(table[index * this.words + w] as number);
    return out;
  }

  /** Organisation name the file gives for an AS number (used when the edge supplies only the ASN). */
  organizationOf(asn: number): string | null {
    if (!this.byAsn) {
      this.byAsn = new Map();
      const count = this.orgs.length / 3;
      for (let i = 0; i < count; i++) {
        const n = this.orgs[i * 3] as number;
        if (!this.byAsn.has(n)) this.byAsn.set(n, i);
      }
    }
    const org = this.byAsn.get(asn);
    return org === undefined ? null : this.record(org).organization;
  }
}
