// One spelling of a DNS name for comparisons and keys: DNS names are case-insensitive (RFC 4343) and
// a trailing dot only marks the name as absolute (RFC 1034 section 3.1). IDNA is not applied here:
// callers that accept U-labels convert them themselves (validate-hostname.ts).

/** Lower-cases and trims a name and drops one trailing dot (the root): `Geo.Example.COM.` -> `geo.example.com`. */
export function normaliseHostname(raw: string): string {
  const trimmed = raw.trim().toLowerCase();
  return trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
}
