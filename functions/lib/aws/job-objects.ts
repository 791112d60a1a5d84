import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ChunkRow } from '../jobs/chunking.js';
import type { ChunkResults } from '../jobs/job-results.js';
import { CALL_BOUNDS, type CallBound, putResponseMs } from './call-bounds.js';
import { chunkKey, chunkResultsKey, chunksPrefix, jobRulesKey, resultsKey } from './job-keys.js';
import { presignLandingUpload } from './landing-upload.js';

// A job's objects in the jobs bucket: primitive S3 calls, every key from job-keys.ts.

/** Names the SDK gives a missing key (HEAD answers NotFound, GET NoSuchKey). */
const isMissing = (err: unknown) => {
  const name = (err as { name?: string }).name;
  return name === 'NotFound' || name === 'NoSuchKey';
};

export class JobObjects {
  /** `bound`: the client's (call-bounds.ts); a PUT's response bound grows with its body. */
  constructor(
    readonly s3: S3Client,
    readonly bucket: string,
    private readonly bound: CallBound = CALL_BOUNDS.s3,
  ) {}

  async put(objectKey: string, body: Buffer | string, contentType: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: objectKey, Body: body, ContentType: contentType }),
      // A list's upload or a results file (up to 10 MB) is sent before S3 answers.
      { requestTimeout: putResponseMs(this.bound, Buffer.byteLength(body)) },
    );
  }

  async text(objectKey: string): Promise<string> {
    const res = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }));
    return res.Body!.transformToString();
  }

  async exists(objectKey: string): Promise<boolean> {
    try {
      await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  /** Every key under a prefix. */
  async keys(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const page of paginateListObjectsV2(
      { client: this.s3 },
      { Bucket: this.bucket, Prefix: prefix },
    )) {
      for (const o of page.Contents ?? []) keys.push(o.Key!);
    }
    return keys;
  }

  /** Deletes up to 1,000 keys (one DeleteObjects call). */
  async deleteKeys(keys: readonly string[]): Promise<void> {
    await this.s3.send(
      new DeleteObjectsCommand({
        Bucket: this.bucket,
        Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
      }),
    );
  }

  async deleteKey(objectKey: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }));
  }

  /** One GET: the response, or 'absent' for a missing key. */
  async open(objectKey: string, absentNames: readonly string[]): Promise<GetObjectCommandOutput | 'absent'> {
    try {
      return await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }));
    } catch (err) {
      if (absentNames.includes((err as { name?: string }).name ?? '')) return 'absent';
      throw err;
    }
  }

  // The job's own objects.

  async putChunkRows(jobId: string, chunk: number, rows: readonly ChunkRow[]): Promise<void> {
    await this.put(chunkKey(jobId, chunk), JSON.stringify(rows), 'application/json');
  }

  async putJobRules(jobId: string, rules: string): Promise<void> {
    await this.put(jobRulesKey(jobId), rules, 'application/json');
  }

  async jobRules(jobId: string): Promise<string> {
    return this.text(jobRulesKey(jobId));
  }

  async chunkRows(jobId: string, chunk: number): Promise<ChunkRow[]> {
    return JSON.parse(await this.text(chunkKey(jobId, chunk))) as ChunkRow[];
  }

  async putChunkResults(jobId: string, chunk: number, results: ChunkResults): Promise<void> {
    await this.put(chunkResultsKey(jobId, chunk), JSON.stringify(results), 'application/json');
  }

  async chunkResults(jobId: string, chunk: number): Promise<ChunkResults> {
    return JSON.parse(await this.text(chunkResultsKey(jobId, chunk))) as ChunkResults;
  }

  /** The chunk row files of the job's first `chunkCount` chunks that are not stored. */
  async missingChunks(jobId: string, chunkCount: number): Promise<string[]> {
    const wanted = new Set(Array.from({ length: chunkCount }, (_, n) => chunkKey(jobId, n)));
    for (const k of await this.keys(chunksPrefix(jobId))) wanted.delete(k);
    return [...wanted];
  }

  async putResults(jobId: string, body: string): Promise<void> {
    await this.put(resultsKey(jobId), body, 'text/csv');
  }

  async resultsText(jobId: string): Promise<string> {
    return this.text(resultsKey(jobId));
  }

  async resultsUrl(jobId: string, filename: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(
      this.s3,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: resultsKey(jobId),
        ResponseContentType: 'text/csv',
        ResponseContentDisposition: `attachment; filename="${filename}"`,
      }),
      { expiresIn: expiresInSeconds },
    );
  }

  /** A presigned POST to a landing key, for a CSV of up to `maxBytes` (landing-upload.ts). */
  landingUpload(
    objectKey: string,
    maxBytes: number,
    expiresInSeconds: number,
  ): Promise<{ url: string; fields: Record<string, string> }> {
    return presignLandingUpload(this.s3, this.bucket, objectKey, maxBytes, expiresInSeconds);
  }
}
