import type { DnsLookup } from '../dns/mx-resolver.js';

// The two things verification needs from outside: DNS answers, and a TLS certificate plus edge
// binding for the hostname. Adapters: dns-resolver.ts (node:dns), local-certificates.ts (the local
// stack), ../aws/cloudfront-tenants.ts (CloudFront distribution tenants).

/** DNS lookups of the verification records. A lookup never rejects: every outcome is a value. */
export interface DomainResolver {
  /** CNAME targets of `name`, as DNS returns them (no trailing dot, any case). */
  resolveCname(name: string): Promise<DnsLookup<string>>;
  /** TXT values of `name`, each one's character-strings joined. */
  resolveTxt(name: string): Promise<DnsLookup<string>>;
}

export type CertificateState =
  | { state: 'pending' }
  | { state: 'issued' }
  | { state: 'failed'; reason: string };

/**
 * TLS for a custom hostname and its binding at the edge. `request` is called once DNS verified
 * (so nothing is issued for a name the claimant has not shown control of) and is idempotent;
 * `release` tears down what `request` created, and may need more than one call when the edge
 * finishes asynchronously.
 */
export interface CertificateProvider {
  request(hostname: string): Promise<void>;
  status(hostname: string): Promise<CertificateState>;
  /** 'released' when nothing is left; 'pending' when a later call must finish the job. */
  release(hostname: string): Promise<'released' | 'pending'>;
}
