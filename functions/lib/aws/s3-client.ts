import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../runtime/config.js';
import { type CallBound, callBound, clientBounds } from './call-bounds.js';
import { traceClient } from './tracing.js';

let s3: S3Client | undefined;

/** The bound of this container's S3 calls (call-bounds.ts); a PUT's adds its body's size (putResponseMs). */
export function s3CallBound(): CallBound {
  return callBound('s3', config());
}

export function s3Client(): S3Client {
  // An emulator's endpoint (the SDK reads the same variables) takes bucket names in the path.
  const { AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL } = config();
  s3 ??= traceClient(
    new S3Client({
      ...clientBounds(s3CallBound()),
      forcePathStyle: Boolean(AWS_ENDPOINT_URL_S3 ?? AWS_ENDPOINT_URL),
      // The local S3 emulator would store the SDK's aws-chunked framing of streamed uploads.
      requestChecksumCalculation: 'WHEN_REQUIRED',
    }),
  );
  return s3;
}

/** Forgets the client (the local stack calls it when it points the SDK at new emulator endpoints). */
export function resetS3Client(): void {
  s3 = undefined;
}
