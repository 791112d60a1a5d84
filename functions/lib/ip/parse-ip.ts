// Strict parser for the one IP address a caller supplies (a malformed one is 400 invalid_ip).
// Accepts exactly an IPv4 dotted quad (RFC 791 notation, decimal, no leading zeros, so that
// "010.1.1.1" cannot be read as octal by one system and decimal by another) or an RFC 4291 §2.2
// IPv6 text form (full, "::"-compressed, or with a trailing dotted quad). Everything else is refused:
// zone ids (RFC 6874 "%eth0"), prefixes and ranges, hostnames, brackets, ports and whitespace.

export interface ParsedIp {
  /** The text exactly as supplied (results echo it back). */
  input: string;
  /** Family of the address as supplied. */
  family: 4 | 6;
  /** Canonical text: the dotted quad, or RFC 5952 form for IPv6 (IPv4-mapped keeps its dotted tail). */
  canonical: string;
  /** Address to look up: the embedded IPv4 for IPv4-mapped IPv6 (`::ffff:a.b.c.d`), else `canonical`. */
  lookupAddress: string;
  /** Family of `lookupAddress`: the IPv4 and IPv6 databases are separate files. */
  lookupFamily: 4 | 6;
  /** Network-order bytes of `lookupAddress` (4 or 16). */
  bytes: Uint8Array;
}

/** Longest IPv6 text form: 8 groups of 4 with 7 colons (39), or 6 groups + dotted quad (45). */
const MAX_TEXT_LENGTH = 45;

const DIGIT_0 = 48;
const DIGIT_9 = 57;

/** Parses a strict dotted quad into `out[at..at+4]`; false when it is not one. */
function parseDottedQuad(text: string, out: Uint8Array, at: number): boolean {
  let part = 0;
  let digits = 0;
  let value = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 46; // a virtual '.' closes the last octet
    if (c === 46) {
      if (digits === 0 || part > 3) return false;
      out[at + part] = value;
      part++;
      digits = 0;
      value = 0;
    } else if (c >= DIGIT_0 && c <= DIGIT_9) {
      if (digits > 0 && value === 0) return false; // leading zero ("01", "00")
      value = value * 10 + (c - DIGIT_0);
      digits++;
      if (value > 255) return false;
    } else {
      return false;
    }
  }
  return part === 4;
}

function hexValue(c: number): number {
  if (c >= DIGIT_0 && c <= DIGIT_9) return c - DIGIT_0;
  if (c >= 97 && c <= 102) return c - 87; // a-f
  if (c >= 65 && c <= 70) return c - 55; // A-F
  return -1;
}

/**
 * Scans an IPv6 text form in one pass into eight 16-bit groups, or null. "::" stands for one or more
 * zero groups and may appear once; a dotted quad may end the address (RFC 4291 §2.2).
 */
function parseIpv6Groups(text: string): number[] | null {
  const n = text.length;
  const groups: number[] = [];
  let gap = -1;
  let i = 0;
  if (text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return null; // a lone leading colon
    gap = 0;
    i = 2;
  }
  while (i < n) {
    const start = i;
    let value = 0;
    let digits = 0;
    for (; i < n; i++) {
      const h = hexValue(text.charCodeAt(i));
      if (h < 0) break;
      value = (value << 4) | h;
      digits++;
      if (digits > 4) break;
    }
    if (i < n && text.charCodeAt(i) === 46) {
      // A trailing dotted quad: two more groups, and nothing may follow it.
      const tail = new Uint8Array(4);
      if (groups.length > 6 || !parseDottedQuad(text.slice(start), tail, 0)) return null;
      groups.push(
        ((tail[0] as number) << 8) | (tail[1] as number),
        ((tail[2] as number) << 8) | (tail[3] as number),
      );
      break;
    }
    if (digits === 0 || digits > 4 || groups.length === 8) return null;
    groups.push(value);
    if (i === n) break;
    if (text.charCodeAt(i) !== 58) return null;
    i++;
    if (i < n && text.charCodeAt(i) === 58) {
      if (gap >= 0) return null; // "::" at most once
      gap = groups.length;
      i++;
      if (text.charCodeAt(i) === 58) return null; // ":::"
    } else if (i === n) {
      return null; // a lone trailing colon
    }
  }
  if (gap < 0) return groups.length === 8 ? groups : null;
  const missing = 8 - groups.length;
  if (missing < 1) return null; // "::" stands for at least one zero group
  groups.splice(gap, 0, ...new Array<number>(missing).fill(0));
  return groups;
}

/** RFC 5952 §4: lowercase, no leading zeros, longest run (>= 2) of zero groups as "::", first on a tie. */
function formatIpv6(groups: number[], mappedTail: string | null): string {
  const count = mappedTail === null ? 8 : 6;
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < count; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < count && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  let text = '';
  for (let i = 0; i < count; i++) {
    if (i === bestStart) {
      text += '::';
      i += bestLen - 1;
      continue;
    }
    if (text !== '' && !text.endsWith(':')) text += ':';
    text += (groups[i] as number).toString(16);
  }
  if (mappedTail === null) return text;
  // RFC 5952 §5: IPv4-mapped addresses keep the dotted quad.
  return text.endsWith(':') ? text + mappedTail : `${text}:${mappedTail}`;
}

/**
 * Parses one address strictly. Returns null for anything that is not exactly an IPv4 dotted quad or
 * an IPv6 address (see the file comment for what is refused). Never throws.
 */
export function parseIp(input: string): ParsedIp | null {
  if (typeof input !== 'string' || input.length === 0 || input.length > MAX_TEXT_LENGTH) return null;
  if (!input.includes(':')) {
    const bytes = new Uint8Array(4);
    if (!parseDottedQuad(input, bytes, 0)) return null;
    return { input, family: 4, canonical: input, lookupAddress: input, lookupFamily: 4, bytes };
  }
  const groups = parseIpv6Groups(input);
  if (groups === null) return null;
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const g = groups[i] as number;
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  }
  const mapped = groups[5] === 0xffff && groups.slice(0, 5).every((g) => g === 0);
  if (mapped) {
    const v4 = bytes.slice(12, 16);
    const quad = v4.join('.');
    return {
      input,
      family: 6,
      canonical: formatIpv6(groups, quad),
      lookupAddress: quad,
      lookupFamily: 4,
      bytes: v4,
    };
  }
  const canonical = formatIpv6(groups, null);
  return { input, family: 6, canonical, lookupAddress: canonical, lookupFamily: 6, bytes };
}
