import { lastAtOrBelow } from '../binary-search.js';

// The lookup of the compiled range files (asn-reader.ts, security/range-table.ts): ranges sorted by
// start and not overlapping, their bounds in two tables, one 32-bit word a bound for IPv4 and four
// (most significant first) for IPv6.

/** Bytes `at` to `at + 3` of an address as one unsigned 32-bit word. */
export function addressWord(bytes: Uint8Array, at = 0): number {
  return (
    (((bytes[at] as number) << 24) |
      ((bytes[at + 1] as number) << 16) |
      ((bytes[at + 2] as number) << 8) |
      (bytes[at + 3] as number)) >>>
    0
  );
}

/** An IPv6 address (16 bytes) as four words, written into `key`. */
export function addressWords(bytes: Uint8Array, key: Uint32Array): Uint32Array {
  for (let w = 0; w < 4; w++) key[w] = addressWord(bytes, 4 * w);
  return key;
}

/** Index of the IPv4 range holding `address`, or -1: the last start at or below it, if its end reaches. */
export function rangeHoldingV4(
  starts: Uint32Array,
  ends: Uint32Array,
  count: number,
  address: number,
): number {
  const found = lastAtOrBelow(count, (i) => (starts[i] as number) <= address);
  return found >= 0 && address <= (ends[found] as number) ? found : -1;
}

/** Index of the IPv6 range holding `key` (four words), or -1. */
export function rangeHoldingV6(
  starts: Uint32Array,
  ends: Uint32Array,
  count: number,
  key: Uint32Array,
): number {
  const found = lastAtOrBelow(count, (i) => compareWords(starts, i, key) <= 0);
  return found >= 0 && compareWords(ends, found, key) >= 0 ? found : -1;
}

/** The order of the four-word bound at `index` of `table` and `key`: negative, 0 or positive. */
function compareWords(table: Uint32Array, index: number, key: Uint32Array): number {
  const base = index * 4;
  for (let w = 0; w < 4; w++) {
    const a = table[base + w] as number;
    const k = key[w] as number;
    if (a !== k) return a < k ? -1 : 1;
  }
  return 0;
}
