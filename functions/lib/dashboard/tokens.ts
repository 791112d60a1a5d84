import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// Sign-in links, sessions and CSRF tokens are opaque random values (256 bits); only their SHA-256
// is stored, so a copy of the tables signs nobody in.

/** A fresh secret: 32 random bytes, base64url (43 characters). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored for a secret: its SHA-256, hex. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Cheap syntactic check before any lookup: junk never reaches the table. */
export function isWellFormedSecret(value: string): boolean {
  return SECRET_PATTERN.test(value);
}

/** Compares two tokens in constant time (a CSRF token against the session's). */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
