// Addresses that can never describe a location on the public internet: answered found:false
// without touching a database. Ranges from the IANA IPv4 and IPv6 Special-Purpose Address
// Registries (RFC 6890 and its updates) plus multicast (RFC 5771, RFC 4291 §2.7).
import type { ParsedIp } from './parse-ip.js';

export type SpecialRange =
  | 'unspecified'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'cgnat'
  | 'documentation'
  | 'benchmarking'
  | 'multicast'
  | 'reserved'
  | 'translation';

type Rule = readonly [prefix: string, bits: number, kind: SpecialRange];

const V4_RULES: readonly Rule[] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network" (RFC 791)
  ['10.0.0.0', 8, 'private'], // RFC 1918
  ['100.64.0.0', 10, 'cgnat'], // shared address space (RFC 6598)
  ['127.0.0.0', 8, 'loopback'], // RFC 1122
  ['169.254.0.0', 16, 'link-local'], // RFC 3927
  ['172.16.0.0', 12, 'private'], // RFC 1918
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments (RFC 6890)
  ['192.0.2.0', 24, 'documentation'], // TEST-NET-1 (RFC 5737)
  ['192.88.99.0', 24, 'reserved'], // deprecated 6to4 relay anycast (RFC 7526)
  ['192.168.0.0', 16, 'private'], // RFC 1918
  ['198.18.0.0', 15, 'benchmarking'], // RFC 2544
  ['198.51.100.0', 24, 'documentation'], // TEST-NET-2 (RFC 5737)
  ['203.0.113.0', 24, 'documentation'], // TEST-NET-3 (RFC 5737)
  ['224.0.0.0', 4, 'multicast'], // RFC 5771
  ['240.0.0.0', 4, 'reserved'], // future use, incl. 255.255.255.255 broadcast (RFC 1112, RFC 919)
];

const V6_RULES: readonly Rule[] = [
  ['::', 128, 'unspecified'], // RFC 4291
  ['::1', 128, 'loopback'], // RFC 4291
  ['::', 96, 'reserved'], // deprecated IPv4-compatible addresses (RFC 4291 §2.5.5.1)
  ['64:ff9b::', 96, 'translation'], // NAT64 well-known prefix (RFC 6052)
  ['64:ff9b:1::', 48, 'translation'], // local-use NAT64 (RFC 8215)
  ['100::', 64, 'reserved'], // discard-only (RFC 6666)
  ['2001::', 32, 'translation'], // Teredo: an IPv4 host's tunnel, its address obfuscated (RFC 4380)
  ['2001:2::', 48, 'benchmarking'], // RFC 5180
  ['2001:10::', 28, 'reserved'], // deprecated ORCHID identifiers, never routed (RFC 4843)
  ['2001:20::', 28, 'reserved'], // ORCHIDv2 identifiers, not locators (RFC 7343)
  ['2002::', 16, 'translation'], // 6to4: an IPv4 host's tunnel (RFC 3056, deprecated by RFC 7526)
  ['2001:db8::', 32, 'documentation'], // RFC 3849
  ['3fff::', 20, 'documentation'], // RFC 9637
  ['fc00::', 7, 'private'], // unique local (RFC 4193)
  ['fe80::', 10, 'link-local'], // RFC 4291
  ['fec0::', 10, 'reserved'], // deprecated site-local (RFC 3879)
  ['ff00::', 8, 'multicast'], // RFC 4291 §2.7
];

function toBytes(address: string, length: 4 | 16): Uint8Array {
  if (length === 4) return Uint8Array.from(address.split('.').map(Number));
  const [head = '', tail = ''] = address.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const h = groups(head);
  const t = groups(tail);
  const all = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

interface CompiledRule {
  prefix: Uint8Array;
  bits: number;
  kind: SpecialRange;
}

const compile = (rules: readonly Rule[], length: 4 | 16): CompiledRule[] =>
  rules
    .map(([p, bits, kind]) => ({ prefix: toBytes(p, length), bits, kind }))
    // Most specific first, so ::1/128 wins over ::/96.
    .sort((a, b) => b.bits - a.bits);

const V6 = compile(V6_RULES, 16);

/** IPv4 rules as (network, mask) pairs of unsigned 32-bit integers: one AND and compare each. */
const V4 = compile(V4_RULES, 4).map((r) => {
  const p = r.prefix;
  const network =
    (((p[0] as number) << 24) | ((p[1] as number) << 16) | ((p[2] as number) << 8) | (p[3] as number)) >>> 0;
  const mask = r.bits === 0 ? 0 : (0xffffffff << (32 - r.bits)) >>> 0;
  return { network, mask, kind: r.kind };
});

function matches(bytes: Uint8Array, rule: CompiledRule): boolean {
  let bits = rule.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] as number) & mask) !== ((rule.prefix[i] as number) & mask)) return false;
  }
  return true;
}

/**
 * The special-purpose range an address falls in, or null for a (potentially) public address.
 * IPv4-mapped IPv6 is judged by its IPv4 address. IPv6 outside 2000::/3 (the only block IANA
 * allocates for global unicast) is reserved.
 */
export function specialRange(ip: ParsedIp): SpecialRange | null {
  const b = ip.bytes;
  if (ip.lookupFamily === 4) {
    const n =
      (((b[0] as number) << 24) | ((b[1] as number) << 16) | ((b[2] as number) << 8) | (b[3] as number)) >>>
      0;
    for (const rule of V4) if ((n & rule.mask) >>> 0 === rule.network) return rule.kind;
    return null;
  }
  for (const rule of V6) if (matches(b, rule)) return rule.kind;
  if (((b[0] as number) & 0xe0) !== 0x20) return 'reserved';
  return null;
}
