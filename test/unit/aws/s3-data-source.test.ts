import type { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, test } from '@jest/globals';
import { isAbsent, S3DataStore } from '../../../functions/lib/aws/s3-data-source.js';

// The functions that follow refreshed data may GetObject under data/ but not list the bucket, and
// S3 answers such a caller's GET of a missing key with 403 AccessDenied instead of 404 NoSuchKey.

/** An S3 client whose every call fails as S3 fails it. */
function failingS3(name: string, status: number): S3Client {
  return {
    send: async () => {
      throw Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
    },
  } as unknown as S3Client;
}

describe('reading published data without s3:ListBucket', () => {
  test('before the first refresh a missing pointer reads as nothing published, answered 403 or 404', async () => {
    for (const [name, status] of [
      ['AccessDenied', 403],
      ['NoSuchKey', 404],
    ] as const) {
      const store = new S3DataStore(failingS3(name, status), 'bucket');
      await expect(store.readPointer()).resolves.toBeNull();
      await expect(store.readFile('20260101T000000Z', 'security/ranges.bin')).resolves.toBeNull();
    }
  });

  test('other failures still fail', async () => {
    const store = new S3DataStore(failingS3('SlowDown', 503), 'bucket');
    await expect(store.readPointer()).rejects.toThrow('SlowDown');
    expect(isAbsent(Object.assign(new Error('x'), { name: 'NoSuchBucket' }))).toBe(false);
  });
});
