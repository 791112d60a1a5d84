import { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../runtime/config.js';
import { part } from '../runtime/services.js';
import { type CallBound, callBound, clientBounds } from './call-bounds.js';
import { traceClient } from './tracing.js';

/** The bound of S3 calls (call-bounds.ts); a PUT's adds its body's size (putResponseMs). */
export function s3CallBound(config: Config): CallBound {
  return callBound('s3', config);
}

/** The instance's S3 client. */
export const s3Client = /* @__PURE__ */ part(({ config }) => {
  // An emulator's endpoint (the SDK reads the same variables) takes bucket names in the path.
  const { AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL } = config;
  return traceClient(
    new S3Client({
      ...clientBounds(s3CallBound(config)),
      forcePathStyle: Boolean(AWS_ENDPOINT_URL_S3 ?? AWS_ENDPOINT_URL),
      // The local S3 emulator would store the SDK's aws-chunked framing of streamed uploads.
      requestChecksumCalculation: 'WHEN_REQUIRED',
    }),
  );
});
