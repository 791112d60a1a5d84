import { promisify } from 'node:util';
import { gunzip, gunzipSync } from 'node:zlib';

// gzip bodies: how one is recognised (its first two bytes) and decompressed within a bound. A request
// body labelled `Content-Encoding: gzip` may arrive still compressed or already decompressed (API
// Gateway decompresses only bodies over the REST API's minimumCompressionSize, and keeps the header),
// so the bytes decide.

const GZIP_MAGIC = 0x1f8b;

/** Whether `bytes` start as a gzip stream does (neither JSON nor CSV text can). */
export function looksGzipped(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes.readUInt16BE(0) === GZIP_MAGIC;
}

/** Why a gzip body was not decompressed. */
export type GunzipRefusal = 'too_large' | 'not_gzip';

/**
 * A gzip body decompressed whole, or why not: `too_large` as soon as the output passes
 * `limitBytes` (zlib stops there, so a small bomb costs no more than the limit), `not_gzip` for a
 * broken or truncated stream.
 */
export function gunzipWithin(bytes: Buffer, limitBytes: number): Buffer | GunzipRefusal {
  try {
    return gunzipSync(bytes, { maxOutputLength: limitBytes });
  } catch (error) {
    return refusalOf(error);
  }
}

/** gunzipWithin off the event loop (zlib's thread pool): for bodies of megabytes. */
export async function gunzipWithinAsync(bytes: Buffer, limitBytes: number): Promise<Buffer | GunzipRefusal> {
  try {
    return await promisify(gunzip)(bytes, { maxOutputLength: limitBytes });
  } catch (error) {
    return refusalOf(error);
  }
}

function refusalOf(error: unknown): GunzipRefusal {
  return (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' ? 'too_large' : 'not_gzip';
}
