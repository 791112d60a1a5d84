// The compiled security artifact: every listed range, IPv4 and IPv6, cut into sorted,
// non-overlapping inclusive ranges, each with the 5-bit mask of the flags that hold there
// (flags.ts). A lookup is one binary search over typed arrays that view the file's buffer: no
// parsing at load beyond the header, O(log n) per address, all five flags at once.
//
// Layout, integers unsigned 32-bit little-endian (the ASN file of ../ip/asn-reader.ts does the same):
//   header (64 bytes)
//     0  magic "NISEC001"
//     8  format version (1)
//    12  v4Count   IPv4 ranges
//    16  v6Count   IPv6 ranges
//    20  flag bits in use (5)
//    24  data-version length in bytes (<= 36)
//    28  data version, UTF-8, zero-padded to 36 bytes (the version the manifest names)
//   v4Starts  v4Count words
//   v4Ends    v4Count words (inclusive)
//   v6Starts  v6Count × 4 words, each address as four words, most significant first
//   v6Ends    v6Count × 4 words (inclusive)
//   v4Masks   v4Count bytes
//   v6Masks   v6Count bytes
// The mask bytes come last so that every word array stays 4-byte aligned.

import { aligned, LITTLE_ENDIAN } from '../compiled-file.js';
import type { ParsedIp } from '../ip/parse-ip.js';
import { addressWord, addressWords, rangeHoldingV4, rangeHoldingV6 } from '../ip/range-search.js';
import { FLAG_BIT_COUNT } from './flags.js';

export const RANGE_TABLE_MAGIC = 'NISEC001';
export const RANGE_TABLE_FORMAT_VERSION = 1;
export const RANGE_TABLE_HEADER_BYTES = 64;
const VERSION_FIELD_BYTES = 36;

/** One compiled range: inclusive bounds and the flag mask. */
export interface MaskedRange {
  start: bigint;
  end: bigint;
  mask: number;
}

export interface RangeTableContent {
  /** Data version written into the header (also the artifact's version in the manifest). */
  version: string;
  v4: readonly MaskedRange[];
  v6: readonly MaskedRange[];
}

export class RangeTableFormatError extends Error {
  override readonly name = 'RangeTableFormatError';
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Writes the file. Ranges must be sorted, disjoint and with a non-zero mask (compile.ts makes them so). */
export function encodeRangeTable(content: RangeTableContent): Uint8Array {
  const version = encoder.encode(content.version);
  if (version.length > VERSION_FIELD_BYTES) throw new RangeTableFormatError('data version is too long');
  const v4 = content.v4.length;
  const v6 = content.v6.length;
  const bytes = RANGE_TABLE_HEADER_BYTES + v4 * 8 + v6 * 32 + v4 + v6;
  const file = new Uint8Array(bytes);
  const view = new DataView(file.buffer);
  file.set(encoder.encode(RANGE_TABLE_MAGIC), 0);
  view.setUint32(8, RANGE_TABLE_FORMAT_VERSION, true);
  view.setUint32(12, v4, true);
  view.setUint32(16, v6, true);
  view.setUint32(20, FLAG_BIT_COUNT, true);
  view.setUint32(24, version.length, true);
  file.set(version, 28);
  let at = RANGE_TABLE_HEADER_BYTES;
  const putV4 = (value: bigint) => {
    view.setUint32(at, Number(value), true);
    at += 4;
  };
  for (const r of content.v4) putV4(r.start);
  for (const r of content.v4) putV4(r.end);
  const putV6 = (value: bigint) => {
    for (let shift = 96n; shift >= 0n; shift -= 32n) {
      view.setUint32(at, Number((value >> shift) & 0xffff_ffffn), true);
      at += 4;
    }
  };
  for (const r of content.v6) putV6(r.start);
  for (const r of content.v6) putV6(r.end);
  for (const r of content.v4) file[at++] = r.mask;
  for (const r of content.v6) file[at++] = r.mask;
  return file;
}

/** Reader of the file. Validates the header, the lengths, the order of the ranges and the masks. */
export class RangeTable {
  readonly version: string;
  readonly v4Count: number;
  readonly v6Count: number;
  /** Size of the file in bytes (held in memory while the table is in use). */
  readonly byteLength: number;
  private readonly v4Starts: Uint32Array;
  private readonly v4Ends: Uint32Array;
  private readonly v6Starts: Uint32Array;
  private readonly v6Ends: Uint32Array;
  private readonly v4Masks: Uint8Array;
  private readonly v6Masks: Uint8Array;
  /** Scratch key of the IPv6 search (a lookup is synchronous, so one per table suffices). */
  private readonly key = new Uint32Array(4);

  constructor(file: Uint8Array) {
    if (!LITTLE_ENDIAN) throw new RangeTableFormatError('the range table needs a little-endian platform');
    const buf = aligned(file);
    if (
      buf.byteLength < RANGE_TABLE_HEADER_BYTES ||
      decoder.decode(buf.subarray(0, 8)) !== RANGE_TABLE_MAGIC
    ) {
      throw new RangeTableFormatError('not a compiled security range table');
    }
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const formatVersion = view.getUint32(8, true);
    if (formatVersion !== RANGE_TABLE_FORMAT_VERSION) {
      throw new RangeTableFormatError(`unsupported range table format ${formatVersion}`);
    }
    this.v4Count = view.getUint32(12, true);
    this.v6Count = view.getUint32(16, true);
    const flagBits = view.getUint32(20, true);
    const versionLength = view.getUint32(24, true);
    if (flagBits > 8 || versionLength > VERSION_FIELD_BYTES) throw new RangeTableFormatError('bad header');
    this.version = decoder.decode(buf.subarray(28, 28 + versionLength));
    const expected = RANGE_TABLE_HEADER_BYTES + this.v4Count * 9 + this.v6Count * 33;
    if (buf.byteLength !== expected) throw new RangeTableFormatError('file length does not match its header');
    this.byteLength = buf.byteLength;
    let at = buf.byteOffset + RANGE_TABLE_HEADER_BYTES;
    const words = (count: number) => {
      const out = new Uint32Array(buf.buffer, at, count);
      at += count * 4;
      return out;
    };
    this.v4Starts = words(this.v4Count);
    this.v4Ends = words(this.v4Count);
    this.v6Starts = words(this.v6Count * 4);
    this.v6Ends = words(this.v6Count * 4);
    this.v4Masks = new Uint8Array(buf.buffer, at, this.v4Count);
    this.v6Masks = new Uint8Array(buf.buffer, at + this.v4Count, this.v6Count);
    this.checkOrder(flagBits);
  }

  /** One pass at load (a few ms for 10^5 ranges): a corrupt file must not answer wrongly. */
  private checkOrder(flagBits: number): void {
    const maxMask = (1 << flagBits) - 1;
    for (let i = 0; i < this.v4Count; i++) {
      const s = this.v4Starts[i] as number;
      const mask = this.v4Masks[i] as number;
      if (s > (this.v4Ends[i] as number) || mask === 0 || mask > maxMask) {
        throw new RangeTableFormatError(`IPv4 range ${i} is invalid`);
      }
      if (i > 0 && s <= (this.v4Ends[i - 1] as number)) {
        throw new RangeTableFormatError(`IPv4 range ${i} overlaps or is out of order`);
      }
    }
    for (let i = 0; i < this.v6Count; i++) {
      const mask = this.v6Masks[i] as number;
      if (compareAt(this.v6Starts, i, this.v6Ends, i) > 0 || mask === 0 || mask > maxMask) {
        throw new RangeTableFormatError(`IPv6 range ${i} is invalid`);
      }
      if (i > 0 && compareAt(this.v6Starts, i, this.v6Ends, i - 1) <= 0) {
        throw new RangeTableFormatError(`IPv6 range ${i} overlaps or is out of order`);
      }
    }
  }

  /** The flag mask of an address (0: no list holds it). Uses the lookup family and bytes of parse-ip. */
  lookup(ip: ParsedIp): number {
    const b = ip.bytes;
    if (b.length === 4) return this.lookupV4(addressWord(b));
    if (b.length !== 16) return 0;
    return this.lookupV6(addressWords(b, this.key));
  }

  /** Mask of an IPv4 address given as an unsigned 32-bit integer. */
  lookupV4(address: number): number {
    const found = rangeHoldingV4(this.v4Starts, this.v4Ends, this.v4Count, address);
    return found >= 0 ? (this.v4Masks[found] as number) : 0;
  }

  /** Mask of an IPv6 address given as four 32-bit words, most significant first. */
  lookupV6(key: Uint32Array): number {
    const found = rangeHoldingV6(this.v6Starts, this.v6Ends, this.v6Count, key);
    return found >= 0 ? (this.v6Masks[found] as number) : 0;
  }

  /** The ranges of one family, decoded (tests, diffs and the manifest's counts). */
  *ranges(family: 4 | 6): Generator<MaskedRange> {
    if (family === 4) {
      for (let i = 0; i < this.v4Count; i++) {
        yield {
          start: BigInt(this.v4Starts[i] as number),
          end: BigInt(this.v4Ends[i] as number),
          mask: this.v4Masks[i] as number,
        };
      }
      return;
    }
    const value = (table: Uint32Array, i: number) => {
      let v = 0n;
      for (let w = 0; w < 4; w++) v = (v << 32n) | BigInt(table[i * 4 + w] as number);
      return v;
    };
    for (let i = 0; i < this.v6Count; i++) {
      yield { start: value(this.v6Starts, i), end: value(this.v6Ends, i), mask: this.v6Masks[i] as number };
    }
  }
}

function compareAt(a: Uint32Array, i: number, b: Uint32Array, j: number): number {
  for (let w = 0; w < 4; w++) {
    const x = a[i * 4 + w] as number;
    const y = b[j * 4 + w] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
