// Publishable keys are locked to origins (docs/api.md: Authentication). An allowed entry is an exact origin
// (`https://app.example.com`), or `http://localhost:*` / `http://127.0.0.1:*` where the port is
// a wildcard: local development servers move between ports, real sites do not.

const LOCAL_WILDCARD = /^(https?):\/\/(localhost|127\.0\.0\.1|\[::1\]):\*$/;

/** The port a scheme's URLs have when they name none: browsers leave it out of an Origin. */
const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * Canonical origin of a URL (a Referer), or undefined (`null`, opaque and malformed origins, a
 * URL with credentials, which no browser sends: `http://localhost:3000@evil.example` is evil.example,
 * and port 0, on which no page is served).
 */
export function originOf(value: string | undefined): string | undefined {
  if (!value || value === 'null') return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (url.username !== '' || url.password !== '') return undefined;
    if (url.port === '0') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * The origin an Origin header names, or undefined unless it is one as browsers send it:
 * `scheme://host[:port]` and nothing else (any case), never a path, a query or credentials.
 */
export function headerOriginOf(value: string | undefined): string | undefined {
  const origin = originOf(value);
  return origin !== undefined && origin === value?.toLowerCase() ? origin : undefined;
}

/**
 * Normalises an allowed-origins entry; undefined when it is neither an origin nor a local wildcard.
 * A scheme's default port is dropped (`https://a.example:443` is `https://a.example`), as browsers
 * drop it from the Origin they send; port 0 is no origin's.
 */
export function normaliseAllowedOrigin(entry: string): string | undefined {
  const trimmed = entry.trim().replace(/\/$/, '').toLowerCase();
  if (LOCAL_WILDCARD.test(trimmed)) return trimmed;
  const origin = originOf(trimmed);
  const withDefaultPort = origin && `${origin}:${DEFAULT_PORTS[new URL(origin).protocol]}`;
  // Only plain DNS names or IP literals: no wildcards, no userinfo, no path.
  if (
    !origin ||
    (origin !== trimmed && withDefaultPort !== trimmed) ||
    !/^https?:\/\/([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(:\d+)?$/.test(origin)
  ) {
    return undefined;
  }
  return origin;
}

export function isOriginAllowed(origin: string, allowed: readonly string[]): boolean {
  // No page is served on port 0: not even an entry stored before such entries were refused allows it.
  if (originOf(origin) !== origin) return false;
  for (const entry of allowed) {
    if (entry === origin) return true;
    const wildcard = LOCAL_WILDCARD.exec(entry);
    if (wildcard) {
      const url = new URL(origin);
      if (url.protocol === `${wildcard[1]}:` && url.hostname === wildcard[2]) return true;
    }
  }
  return false;
}
