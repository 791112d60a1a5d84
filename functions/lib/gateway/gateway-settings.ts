// API Gateway settings the stack deploys (infra/constructs/api.ts) and the local gateway emulates
// (scripts/local/api-gateway.ts): one definition, so the two cannot drift.

export const STAGE_NAME = 'prod';

/**
 * Every request body reaches the handler base64-encoded, as the bytes the client sent
 * (fromApiGatewayEvent decodes it). API Gateway picks text or binary from Content-Type alone, and a
 * text body is re-encoded as UTF-8: a gzip body sent as `application/json` with
 * `Content-Encoding: gzip` would arrive mangled. "Binary when Content-Encoding is gzip" cannot be
 * expressed, so all types are binary. The cost: a body grows by a third inside the 6 MB
 * invocation payload. Lambda proxy responses are unaffected (they are text unless
 * isBase64Encoded); the mock integrations convert to text (api.ts).
 */
export const BINARY_MEDIA_TYPES = ['*/*'];

/** Whether API Gateway treats a body of `contentType` as binary, wildcards included. */
export function isBinaryMediaType(contentType: string, binaryTypes: readonly string[] = BINARY_MEDIA_TYPES) {
  // API Gateway assumes application/json when a request has no Content-Type.
  const [type = '', subtype = ''] = (
    contentType.split(';')[0]!.trim().toLowerCase() || 'application/json'
  ).split('/');
  return binaryTypes.some((entry) => {
    const [t, s] = entry.toLowerCase().split('/');
    return (t === '*' || t === type) && (s === '*' || s === subtype);
  });
}

/**
 * Response compression (the REST API's minimumCompressionSize). API Gateway compresses a response
 * of at least this many bytes when the request's preferred Accept-Encoding is one it supports
 * (gzip or deflate) and the handler did not encode it itself. 1 KB: below that the gzip header
 * and a TLS record save next to nothing, and most answers under it are single lookups and errors.
 * CloudFront in front passes the encoded body through (its own compression needs a caching cache
 * policy, infra/constructs/edge.ts says why the API has none).
 */
export const MINIMUM_COMPRESSION_SIZE = 1024;

/** Content codings API Gateway compresses responses with. */
export const RESPONSE_ENCODINGS = ['gzip', 'deflate'] as const;
export type ResponseEncoding = (typeof RESPONSE_ENCODINGS)[number];

/**
 * The coding API Gateway answers with for an Accept-Encoding header, or null for none. API
 * Gateway: "The highest-priority content encoding must be one supported by API Gateway. If it is
 * not, compression is not applied"; without the header (`*` by default) it does not compress.
 * Priority is the q-value (RFC 9110 12.5.3); among equal ones the first listed wins.
 */
export function responseEncoding(acceptEncoding: string | undefined): ResponseEncoding | null {
  let best: { coding: string; q: number } | null = null;
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name = '', ...params] = part.split(';').map((p) => p.trim());
    const coding = name.toLowerCase();
    if (coding === '') continue;
    const qParam = params.find((p) => /^q\s*=/i.test(p));
    const q = qParam === undefined ? 1 : Number(qParam.split('=')[1]);
    if (!Number.isFinite(q) || q <= 0) continue;
    if (best === null || q > best.q) best = { coding, q };
  }
  const chosen = best?.coding;
  return RESPONSE_ENCODINGS.find((c) => c === chosen) ?? null;
}
