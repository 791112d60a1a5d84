// API Gateway settings the stack deploys (infra/constructs/api.ts) and the local gateway emulates
// (scripts/local/api-gateway.ts): one definition, so the two cannot drift.

export const STAGE_NAME = 'prod';

/** Bodies of these content types reach the handler base64-encoded (the job CSV uploads). */
export const BINARY_MEDIA_TYPES = ['text/csv', 'application/gzip'];
