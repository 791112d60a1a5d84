// Verifying a netintel webhook on the receiving side (Node.js 20+, Deno, browsers, workers: Web
// Crypto only). The API signs each delivery with `Netintel-Signature: t=<unix seconds>,v1=<hex>`:
// HMAC-SHA256 of `<t>.<raw body>` under the endpoint's secret, one v1 per live secret while a
// secret is rotated. Pass the body exactly as received (before JSON.parse).

export interface VerifyOptions {
  /** Seconds a delivery's timestamp may be from now, either way (default 300: replays are refused). */
  toleranceSeconds?: number;
  /** The receiver's clock (tests); Date.now by default. */
  now?: () => number;
}

export type WebhookVerification =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed' | 'expired' | 'mismatch' };

const encoder = new TextEncoder();

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Equal strings in time that does not depend on where they differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Whether `signatureHeader` (the Netintel-Signature header) signs `body` under `secret`, within
 * the tolerance. `{ok: false, reason}` says why not; nothing throws for a bad header.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookVerification> {
  const header = signatureHeader ?? '';
  if (header.length === 0 || header.length > 4096) return { ok: false, reason: 'malformed' };
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return { ok: false, reason: 'malformed' };
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') timestamp = /^\d{1,12}$/.test(value) ? Number(value) : null;
    // Hex in either case, as Buffer.from(v, 'hex') in the docs' snippet reads it.
    else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === null || signatures.length === 0) return { ok: false, reason: 'malformed' };
  const now = (options.now ?? Date.now)() / 1000;
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return { ok: false, reason: 'expired' };
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const signed = new Uint8Array(String(timestamp).length + 1 + bytes.length);
  signed.set(encoder.encode(`${timestamp}.`));
  signed.set(bytes, String(timestamp).length + 1);
  const expected = hex(await crypto.subtle.sign('HMAC', key, signed));
  return signatures.some((sig) => sameText(sig, expected))
    ? { ok: true, timestamp }
    : { ok: false, reason: 'mismatch' };
}
