import { createHash } from 'node:crypto';
import { ValidationError } from '../http/errors.js';

// Idempotency-Key on POST /v1/email/jobs: a client that lost the answer (a dropped connection, a
// timeout) sends the same request again with the same key and gets the same job, charged once.
// Keys are kept per account for 24 hours; the body is identified by a SHA-256 fingerprint, so the
// same key with another body is refused rather than answered with a job for a different list.

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
export const IDEMPOTENCY_KEY_MAX = 255;

/** C0 controls and DEL: what HTTP would not carry intact, and what a log line should not hold. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** The key of the request (headers lower-cased), undefined without one; 400 when malformed. */
export function idempotencyKey(headers: Record<string, string>): string | undefined {
  const key = headers[IDEMPOTENCY_HEADER];
  if (key === undefined) return undefined;
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX || hasControl(key)) {
    throw new ValidationError(
      'invalid_idempotency_key',
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters without control characters.`,
    );
  }
  return key;
}

/**
 * The identity of a request body: SHA-256 over its parts (decoded body, content type, filename),
 * each length-prefixed (null as its own mark) so that no two different part lists hash the same bytes.
 */
export function bodyFingerprint(parts: readonly (string | Buffer | null)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    if (part === null) {
      hash.update('-;');
      continue;
    }
    const bytes = Buffer.from(part);
    hash.update(`${bytes.length}:`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}
