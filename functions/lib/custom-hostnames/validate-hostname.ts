import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { parse } from 'tldts';
import { normaliseHostname } from '../dns/host-name.js';
import { hasValidPunycodeLabels } from '../dns/punycode-labels.js';
import { isWithin, labelProblem, MAX_HOSTNAME_OCTETS } from './hostname-labels.js';

// Which names may be claimed as custom hostnames: public DNS names on a domain the customer can
// register, never one of ours. RFC 1035 section 2.3.4 (253 octets, 63 per label), RFC 1123 section 2.1
// (LDH labels), and the ICANN section of the Public Suffix List (tldts) for "registrable".

export type HostnameRefusal = 'invalid_hostname' | 'not_public' | 'zone_apex' | 'base_domain';

export type HostnameCheck =
  | { ok: true; hostname: string }
  | { ok: false; code: HostnameRefusal; message: string };

const refuse = (code: HostnameRefusal, message: string): HostnameCheck => ({ ok: false, code, message });

// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The one spelling of a hostname as claims are stored and looked up: lower case, no trailing dot,
 * internationalised names as their A-labels (`Bücher.Customer.DE.` -> `xn--bcher-kva.customer.de`).
 * What `domain add` stores, `domain verify|remove` and the dashboard's check and remove look up.
 * A name IDNA refuses is returned as normalised text (it matches no claim); '' when it is empty.
 */
export function canonicalHostname(raw: string): string {
  const hostname = normaliseHostname(raw);
  if (!NON_ASCII.test(hostname)) return hostname;
  return domainToASCII(hostname) || hostname;
}

/**
 * Checks a hostname a customer wants to claim and returns it in canonical form (lower case,
 * internationalised names as A-labels). Refused: IP addresses; names that are not LDH labels or are
 * too long; names not under an ICANN public suffix (`localhost`, `.example`, private suffixes such as
 * `github.io` or `cloudfront.net`, whose names belong to another platform); bare public suffixes
 * (`co.uk`); a zone apex (`customer.com`: it cannot hold the CNAME to our edge, RFC 1034 section 3.6.2);
 * and our own base domain with every name under it.
 */
export function validateCustomHostname(raw: string, baseDomain: string): HostnameCheck {
  const hostname = canonicalHostname(raw);
  if (hostname === '') return refuse('invalid_hostname', 'The hostname is empty.');
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) {
    return refuse('invalid_hostname', `"${raw}" is an IP address; a custom hostname is a DNS name.`);
  }
  // Internationalised names are claimed by their A-label (xn--...), the form DNS holds: one IDNA
  // refuses stays non-ASCII, and an A-label given as such must decode to the name it stands for
  // (`xn--zz` decodes to nothing: no certificate could name it).
  if (NON_ASCII.test(hostname) || !hasValidPunycodeLabels(hostname)) {
    return refuse('invalid_hostname', `"${raw}" is not a valid internationalised name.`);
  }
  if (Buffer.byteLength(hostname) > MAX_HOSTNAME_OCTETS) {
    return refuse('invalid_hostname', `The hostname is longer than ${MAX_HOSTNAME_OCTETS} characters.`);
  }
  const labels = hostname.split('.');
  if (labels.length < 2) {
    return refuse('not_public', `"${hostname}" is not a public DNS name (it has no domain).`);
  }
  for (const label of labels) {
    const problem = labelProblem(label);
    if (problem) return refuse('invalid_hostname', problem);
  }
  if (/^\d+$/.test(labels.at(-1)!)) {
    return refuse(
      'invalid_hostname',
      `"${hostname}" ends in a numeric label; no top-level domain is numeric.`,
    );
  }
  const base = normaliseHostname(baseDomain);
  if (isWithin(hostname, base)) {
    return refuse(
      'base_domain',
      `"${hostname}" is this service's own domain (${base}), not a custom hostname.`,
    );
  }
  const parsed = parse(hostname, { allowPrivateDomains: true });
  if (parsed.isIcann !== true) {
    const suffix = parsed.publicSuffix ?? '';
    return refuse(
      'not_public',
      parsed.isPrivate
        ? `"${hostname}" is under ${suffix}, a suffix whose names belong to another platform, not to a domain you register.`
        : `"${hostname}" is not under a public top-level domain.`,
    );
  }
  if (parsed.domain === null) {
    return refuse('not_public', `"${hostname}" is a public suffix, not a domain anyone can register.`);
  }
  if (hostname === parsed.domain) {
    return refuse(
      'zone_apex',
      `"${hostname}" is a zone apex, which cannot hold a CNAME; use a name under it, such as api.${hostname}.`,
    );
  }
  return { ok: true, hostname };
}
