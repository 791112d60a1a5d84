import { createHash } from 'node:crypto';

// Idempotency-Key on POST /v1/email/jobs: a client that lost the answer (a dropped connection, a
// timeout) sends the same request again with the same key and gets the same job, charged once.
// Keys are kept per account for 24 hours; the body is identified by a SHA-256 fingerprint, so the
// same key with another body is refused rather than answered with a job for a different list.

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
/** Longest key: the request's Idempotency-Key header is validated by the route's contract (jobs-create). */
export const IDEMPOTENCY_KEY_MAX = 255;

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
