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
