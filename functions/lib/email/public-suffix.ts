import { parse } from 'tldts';

// Public-suffix facts of a domain, from the ICANN section of the Public Suffix List (tldts).
// Private suffixes (blogspot.com, dynv6.net) are deliberately not used: a disposable list entry
// for such a registrable-looking name still matches its subdomains as a parent domain.

const OPTIONS = { extractHostname: false, validateHostname: false, detectIp: false } as const;

export interface DomainParts {
  /** The registrable domain (eTLD+1), or null when the domain is itself a public suffix. */
  readonly registrable: string | null;
  /** True when the top of the domain is a suffix of the ICANN list (false for typos like `.con`). */
  readonly knownSuffix: boolean;
}

export function domainParts(domain: string): DomainParts {
  const parsed = parse(domain, OPTIONS);
  return { registrable: parsed.domain, knownSuffix: parsed.isIcann === true };
}

export function registrableDomain(domain: string): string | null {
  return parse(domain, OPTIONS).domain;
}
