// The rules of DNS names that the request path needs (the custom-hostname binding, the Host
// header's check), apart from validate-hostname.ts: that module also asks the Public Suffix List
// (tldts, about 100 KB minified), which only claiming a hostname needs, and keeping it out of the
// authorizer's and every route's bundle keeps their cold starts shorter (npm run bench -- bundles).

/** RFC 1035 section 2.3.4: a name is at most 255 octets on the wire, 253 as text. */
export const MAX_HOSTNAME_OCTETS = 253;
/** Letters, digits and hyphens, 1-63 characters, no hyphen first or last (RFC 1123 section 2.1). */
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** True when `hostname` is `domain` or a name under it. */
export function isWithin(hostname: string, domain: string): boolean {
  return domain !== '' && (hostname === domain || hostname.endsWith(`.${domain}`));
}

/**
 * Why `label` (lower case, ASCII) is not a DNS label of letters, digits and inner hyphens of at
 * most 63 characters (RFC 1123 section 2.1, RFC 1035 section 2.3.4); undefined when it is one.
 */
export function labelProblem(label: string): string | undefined {
  if (label.length > 63) return `The label "${label.slice(0, 20)}..." is longer than 63 characters.`;
  if (!LDH_LABEL.test(label)) {
    return `The label "${label}" may hold only letters, digits and inner hyphens (no underscores, spaces or empty labels).`;
  }
  return undefined;
}
