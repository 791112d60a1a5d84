import { createHmac, timingSafeEqual } from 'node:crypto';

// Webhook signatures: every delivery carries `Netintel-Signature: t=<unix seconds>,v1=<hex>`, where
// the hex is HMAC-SHA256 of `<t>.<raw body>` under the endpoint's secret. While a secret is being
// rotated a delivery carries one v1 per live secret, so a receiver holding either verifies it. A
// receiver checks the time too: a delivery older than the tolerance (5 minutes) is a replay. The
// client's verifyWebhook (clients/typescript/src/webhooks.ts) is the receiver's side of this.

export const SIGNATURE_HEADER = 'Netintel-Signature';
/** How far a delivery's timestamp may be from the receiver's clock, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

function hmacHex(secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The header value for `body` signed at `at` with each of `secrets` (the newest first). */
export function signatureHeader(secrets: readonly string[], body: string | Buffer, at: Date): string {
  if (secrets.length === 0) throw new Error('a webhook is signed with at least one secret');
  const timestamp = Math.floor(at.getTime() / 1000);
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${hmacHex(secret, timestamp, body)}`)].join(',');
}

export type SignatureCheck =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed' | 'expired' | 'mismatch' };

/** Whether `header` signs `body` under `secret` within the tolerance of `now`. */
export function checkSignature(
  header: string,
  body: string | Buffer,
  secret: string,
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (header.length > 4096) return { ok: false, reason: 'malformed' };
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (eq < 0) return { ok: false, reason: 'malformed' };
    if (key === 't') timestamp = /^\d{1,12}$/.test(value) ? Number(value) : null;
    // Hex in either case, as Buffer.from(v, 'hex') in the docs' snippet reads it.
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === null || signatures.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return { ok: false, reason: 'expired' };
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  const matches = signatures.some((sig) => timingSafeEqual(Buffer.from(sig, 'hex'), expected));
  return matches ? { ok: true, timestamp } : { ok: false, reason: 'mismatch' };
}
