import { parseIp } from '../ip/parse-ip.js';

// Address ranges as the list parsers and the compiler see them: inclusive [start, end] as bigints
// (compile time only; lookups use the typed arrays of range-table.ts). Addresses are read with the
// strict parser of the API (parse-ip.ts), so a list entry is accepted exactly when the same text
// would be accepted as a request's ip. IPv4-mapped IPv6 entries (::ffff:a.b.c.d) become IPv4
// ranges, as the lookup maps such addresses to IPv4 (RFC 4291 §2.5.5.2).

export interface IpRange {
  family: 4 | 6;
  start: bigint;
  /** Inclusive. */
  end: bigint;
}

export const MAX_V4 = 0xffff_ffffn;
export const MAX_V6 = (1n << 128n) - 1n;

/** Big-endian bytes (4 or 16) as an unsigned integer. */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 4) {
    return BigInt(
      ((bytes[0] as number) * 0x100_0000 +
        ((bytes[1] as number) << 16) +
        ((bytes[2] as number) << 8) +
        (bytes[3] as number)) >>>
        0,
    );
  }
  let v = 0n;
  for (let i = 0; i < bytes.length; i += 4) {
    const word =
      ((bytes[i] as number) * 0x100_0000 +
        ((bytes[i + 1] as number) << 16) +
        ((bytes[i + 2] as number) << 8) +
        (bytes[i + 3] as number)) >>>
      0;
    v = (v << 32n) | BigInt(word);
  }
  return v;
}

/** Text of an address value: dotted quad, or eight uncompressed hex groups (accepted by parse-ip). */
export function addressText(family: 4 | 6, value: bigint): string {
  if (family === 4) {
    const n = Number(value);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  return groups.join(':');
}

/** The address of `text` as (family, value), IPv4-mapped IPv6 read as IPv4; null when invalid. */
export function parseAddress(text: string): { family: 4 | 6; value: bigint } | null {
  const ip = parseIp(text);
  if (ip === null) return null;
  return { family: ip.lookupFamily, value: bytesToBigInt(ip.bytes) };
}

/**
 * A CIDR block ("198.51.100.0/24", "2001:db8::/32") or a single address, as a range. Host bits set
 * below the prefix are ignored (the block that contains the address). Null when malformed.
 */
export function parseCidr(text: string): IpRange | null {
  const slash = text.indexOf('/');
  const addressPart = slash < 0 ? text : text.slice(0, slash);
  const ip = parseIp(addressPart);
  if (ip === null) return null;
  let family: 4 | 6 = ip.lookupFamily;
  const written = ip.family === 6 ? 128 : 32;
  let prefix = written;
  if (slash >= 0) {
    const prefixText = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(prefixText)) return null;
    prefix = Number(prefixText);
    if (prefix > written) return null;
  }
  let value = bytesToBigInt(ip.bytes);
  if (ip.family === 6 && ip.lookupFamily === 4) {
    // ::ffff:a.b.c.d/n: an IPv4 block when n covers only the mapped space, else an IPv6 block.
    if (prefix >= 96) {
      prefix -= 96;
    } else {
      family = 6;
      value = (0xffffn << 32n) | value;
    }
  }
  const bits = family === 4 ? 32n : 128n;
  const hostBits = bits - BigInt(prefix);
  const size = 1n << hostBits;
  const start = (value >> hostBits) << hostBits;
  return { family, start, end: start + size - 1n };
}

/** The range as a CIDR block's canonical text ("198.51.100.0/24", "2001:db8::/32"); null when it is no block. */
export function cidrText(range: IpRange): string | null {
  const size = range.end - range.start + 1n;
  if (size <= 0n || (size & (size - 1n)) !== 0n || range.start % size !== 0n) return null;
  const bits = range.family === 4 ? 32 : 128;
  const hostBits = size.toString(2).length - 1;
  const address = addressText(range.family, range.start);
  return `${parseIp(address)?.canonical ?? address}/${bits - hostBits}`;
}

/** Number of addresses in a range, as a float (IPv6 ranges exceed 2^53; the weights are relative). */
export function rangeSize(range: IpRange): number {
  return Number(range.end - range.start) + 1;
}
