import type { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';

/**
 * A presigned POST (browser-form upload) to a landing key: S3 itself refuses a file outside
 * 0..maxBytes (the policy's content-length-range), which a presigned PUT cannot express.
 */
export async function presignLandingUpload(
  s3: S3Client,
  bucket: string,
  objectKey: string,
  maxBytes: number,
  expiresInSeconds: number,
): Promise<{ url: string; fields: Record<string, string> }> {
  return createPresignedPost(s3, {
    Bucket: bucket,
    Key: objectKey,
    Conditions: [['content-length-range', 0, maxBytes]],
    Expires: expiresInSeconds,
  });
}
