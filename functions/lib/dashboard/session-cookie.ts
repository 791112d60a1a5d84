import { parse, serialize } from 'cookie';

// The session cookie (issue #17): HttpOnly, SameSite=Strict, Path=/v1 (the dashboard's API and the
// list-job routes it uses; never the static pages), Secure except on http://localhost, where a
// browser would refuse to store a Secure cookie sent over plain HTTP by anything else.

export const SESSION_COOKIE = 'netintel_session';
const PATH = '/v1';

/** Whether the request came over plain HTTP to the local machine (the local server). */
export function isPlainLocalhost(headers: Record<string, string>): boolean {
  if (headers['x-forwarded-proto']?.toLowerCase() === 'https') return false;
  const host = (headers.host ?? '').toLowerCase();
  return /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(host);
}

export function sessionCookie(secret: string, expiresAt: Date, secure: boolean): string {
  return serialize(SESSION_COOKIE, secret, {
    httpOnly: true,
    secure,
    sameSite: 'strict',
    path: PATH,
    expires: expiresAt,
  });
}

export function clearedSessionCookie(secure: boolean): string {
  return serialize(SESSION_COOKIE, '', {
    httpOnly: true,
    secure,
    sameSite: 'strict',
    path: PATH,
    expires: new Date(0),
  });
}

/** The session cookie's value in a Cookie header, if there is exactly one. */
export function sessionSecretOf(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  const values = cookieHeader
    .split(';')
    .map((part) => parse(part.trim())[SESSION_COOKIE])
    .filter((v): v is string => v !== undefined);
  // Two session cookies (one planted by a sibling subdomain, say): neither is trusted.
  return values.length === 1 ? values[0] : undefined;
}
