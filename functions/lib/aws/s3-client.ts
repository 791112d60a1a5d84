import { S3Client } from '@aws-sdk/client-s3';

let s3: S3Client | undefined;

export function s3Client(): S3Client {
  const local = Boolean(process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL);
  s3 ??= new S3Client({
    forcePathStyle: local,
    // The local S3 emulator would store the SDK's aws-chunked framing of streamed uploads.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  return s3;
}

/** Forgets the client (the local stack calls it when it points the SDK at new emulator endpoints). */
export function resetS3Client(): void {
  s3 = undefined;
}
