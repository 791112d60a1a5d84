// The DNS port the email core depends on. Adapters (resolver.ts over node:dns, caching-resolver.ts)
// implement it; tests implement it with fixed answers. A lookup never rejects: every outcome,
// including a timeout, is a value.

export interface MxRecord {
  /** Mail server host name as returned by DNS; '' for the RFC 7505 null MX ("0 ."). */
  readonly exchange: string;
  readonly priority: number;
}

export type DnsLookup<T> =
  | { readonly kind: 'records'; readonly records: readonly T[] }
  /** The name does not exist (NXDOMAIN). */
  | { readonly kind: 'nxdomain' }
  /** The name exists but has no record of this type (NOERROR with an empty answer). */
  | { readonly kind: 'nodata' }
  /** SERVFAIL, REFUSED, timeout or any other failure: nothing is known. */
  | { readonly kind: 'failure'; readonly code?: string };

export interface MxResolver {
  resolveMx(domain: string): Promise<DnsLookup<MxRecord>>;
  /** IPv4 addresses (A records). */
  resolveA(domain: string): Promise<DnsLookup<string>>;
  /** IPv6 addresses (AAAA records). */
  resolveAaaa(domain: string): Promise<DnsLookup<string>>;
}
