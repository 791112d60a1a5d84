import { promisify } from 'node:util';
import { createGunzip, gunzip } from 'node:zlib';
import * as z from 'zod';
import { mediaType, parseJsonBytes } from '../http/body.js';
import { HttpError, ValidationError } from '../http/errors.js';
import type { HttpRequest } from '../http/request.js';
import { CSV_SLICE_BYTES, CsvInputError, readCsvEmails } from './csv-input.js';
import { JOB_MAX_ROWS } from './job.js';
import { scanJobJson } from './job-json-scan.js';

// POST /v1/email/jobs bodies: JSON {emails, filename?}, JSON {uploadId, filename?} (a CSV posted
// to an upload URL first, for files too big for a Lambda invocation), or text/csv. Either may be
// sent with Content-Encoding: gzip. Limits: 10 MB of CSV or JSON (after decompression), 100,000
// rows.
//
// Work and memory are bounded by the limits, not by what a body claims to be: a CSV is
// decompressed and parsed as a stream of slices and refused at its 100,001st address; a JSON body
// is counted (job-json-scan.ts) before JSON.parse builds anything. What is held is the body as
// received (stored as the job's upload, never re-serialised), one decompressed copy for JSON, and
// the addresses.

export const CSV_LIMIT_BYTES = 10 * 1024 * 1024;
const FILENAME = z.string().max(255).optional();
/** Room in a JSON body for values that are not addresses (filename, unknown members). */
const JSON_OTHER_VALUES = 1_000;
const JSON_MAX_DEPTH = 32;
const GZIP_MAGIC = 0x1f8b;

export const JobJsonBody = z.object({
  emails: z.array(z.string()).describe('Up to 100,000 addresses.'),
  filename: FILENAME.describe('Shown back on the job; optional.'),
});
export const JobUploadBody = z.object({
  uploadId: z
    .string()
    .regex(/^[0-9a-f-]{36}$/)
    .describe('From POST /v1/email/jobs/uploads, after the CSV was posted to its upload URL.'),
  filename: FILENAME,
});

export type JobSource =
  | { kind: 'emails'; emails: string[]; filename: string | null; body: Buffer; contentType: string }
  | { kind: 'upload'; uploadId: string; filename: string | null };

const tooLarge = () => new HttpError('body_too_large', 'The decompressed body is larger than 10 MB.');
const notGzip = () => new ValidationError('invalid_body', 'The gzip body could not be decompressed.');

function isGzip(req: HttpRequest): boolean {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return false;
  if (encoding !== 'gzip')
    throw new HttpError(
      'unsupported_media_type',
      `Content-Encoding ${encoding} is not supported (use gzip).`,
    );
  return true;
}

export function looksGzipped(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes.readUInt16BE(0) === GZIP_MAGIC;
}

/**
 * Whether a request body is still gzip: sent with `Content-Encoding: gzip` (anything else but
 * identity is 415) and starting with the gzip magic bytes. API Gateway decompresses a request body
 * in a coding it supports before it invokes the function, at least once payload compression is on
 * (infra/constructs/api.ts; "If the payload size is smaller than [minimumCompressionSize],
 * compression or decompression are not applied"), and the header still says gzip: a labelled body
 * without the magic bytes is taken as already decoded. A body that starts like gzip and is broken
 * further on is still 400 invalid_body.
 */
export function sentGzipped(req: HttpRequest, body: Buffer): boolean {
  return isGzip(req) && looksGzipped(body);
}

/** A gzip body decompressed as a stream of slices: 413 past CSV_LIMIT_BYTES, 400 if not gzip. */
async function* gunzipSlices(bytes: Buffer): AsyncGenerator<Buffer> {
  const stream = createGunzip({ chunkSize: CSV_SLICE_BYTES });
  stream.end(bytes);
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > CSV_LIMIT_BYTES) throw tooLarge();
      yield chunk;
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw notGzip();
  } finally {
    // Reached too when the reader stops early (a row bomb): the rest is never inflated.
    stream.destroy();
  }
}

/** A whole gzip body, decompressed off the event loop (zlib's thread pool), up to the limit. */
async function gunzipWhole(bytes: Buffer): Promise<Buffer> {
  try {
    return await promisify(gunzip)(bytes, { maxOutputLength: CSV_LIMIT_BYTES + 1 });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw notGzip();
  }
}

export function checkRowCount(emails: readonly unknown[]): void {
  if (emails.length === 0) throw new ValidationError('empty_job', 'The list has no addresses.');
  if (emails.length > JOB_MAX_ROWS) {
    throw new ValidationError(
      'job_too_large',
      `A job takes at most ${JOB_MAX_ROWS} addresses; got ${emails.length}.`,
    );
  }
}

/**
 * The addresses of CSV bytes (gzip-compressed when `gzipped`), read as a stream: 400
 * job_too_large at the 100,001st address, 413 past 10 MB, 400 invalid_body or empty_job.
 */
export async function csvEmails(bytes: Buffer, gzipped: boolean): Promise<string[]> {
  if (!gzipped && bytes.length > CSV_LIMIT_BYTES) {
    throw new HttpError('body_too_large', 'The CSV is larger than 10 MB.');
  }
  let emails: string[];
  try {
    emails = await (gzipped ? gzipCsvEmails(bytes) : readCsvEmails([bytes], { maxEmails: JOB_MAX_ROWS }));
  } catch (err) {
    if (!(err instanceof CsvInputError)) throw err;
    throw new ValidationError(
      err.problem === 'too_many_rows' ? 'job_too_large' : 'invalid_body',
      err.message,
    );
  }
  checkRowCount(emails);
  return emails;
}

/**
 * A gzip CSV read while it is decompressed. Its size is known only once all of it is: a row bomb
 * is refused at its 100,001st row without inflating the rest, but a CSV found malformed is
 * inflated to the end (without parsing) so that one over 10 MB is answered 413, as a plain one is.
 */
async function gzipCsvEmails(bytes: Buffer): Promise<string[]> {
  const inflated = gunzipSlices(bytes);
  // An iterator without return(): the reader stopping early does not close the decompression.
  const pieces = { [Symbol.asyncIterator]: () => ({ next: () => inflated.next() }) };
  try {
    return await readCsvEmails(pieces, { maxEmails: JOB_MAX_ROWS });
  } catch (err) {
    if (err instanceof CsvInputError && err.problem !== 'too_many_rows') {
      try {
        for await (const _ of inflated);
      } catch (sizeErr) {
        if (sizeErr instanceof HttpError && sizeErr.code === 'body_too_large') throw sizeErr;
      }
    }
    throw err;
  } finally {
    await inflated.return(undefined);
  }
}

async function jsonSource(req: HttpRequest): Promise<JobSource> {
  const body = req.body ?? Buffer.alloc(0);
  const text = sentGzipped(req, body) ? await gunzipWhole(body) : body;
  if (text.length > CSV_LIMIT_BYTES) throw new HttpError('body_too_large', 'The body is larger than 10 MB.');
  const verdict = scanJobJson(text, {
    emails: JOB_MAX_ROWS,
    values: JOB_MAX_ROWS + JSON_OTHER_VALUES,
    depth: JSON_MAX_DEPTH,
  });
  if (verdict === 'too_many_emails') {
    throw new ValidationError(
      'job_too_large',
      `A job takes at most ${JOB_MAX_ROWS} addresses; this list has more.`,
    );
  }
  if (verdict !== 'ok') {
    throw new ValidationError(
      'invalid_body',
      verdict === 'too_deep'
        ? `The body nests deeper than ${JSON_MAX_DEPTH} levels.`
        : 'The body holds more values than a list job can.',
    );
  }
  const json = parseJsonBytes(text, CSV_LIMIT_BYTES);
  if (json !== null && typeof json === 'object' && 'uploadId' in json) {
    const parsed = JobUploadBody.safeParse(json);
    if (!parsed.success)
      throw new ValidationError(
        'invalid_body',
        'uploadId must be the id returned by POST /v1/email/jobs/uploads.',
      );
    return { kind: 'upload', uploadId: parsed.data.uploadId, filename: parsed.data.filename ?? null };
  }
  const parsed = JobJsonBody.safeParse(json);
  if (!parsed.success) {
    const emails = (json as { emails?: unknown } | null)?.emails;
    if (Array.isArray(emails) && emails.length > JOB_MAX_ROWS) checkRowCount(emails);
    throw new ValidationError('invalid_body', 'Expected {"emails": string[], "filename"?: string}.');
  }
  checkRowCount(parsed.data.emails);
  // The body as received (compressed or not) is the job's upload: no re-serialised copy.
  return {
    kind: 'emails',
    emails: parsed.data.emails,
    filename: parsed.data.filename ?? null,
    body,
    contentType: 'application/json',
  };
}

export async function readJobSource(req: HttpRequest): Promise<JobSource> {
  const type = mediaType(req);
  if (type === 'text/csv') {
    const filename = req.query.filename ?? null;
    if (filename !== null && filename.length > 255)
      throw new ValidationError('invalid_body', 'filename is too long.');
    const body = req.body ?? Buffer.alloc(0);
    const emails = await csvEmails(body, sentGzipped(req, body));
    return { kind: 'emails', emails, filename, body, contentType: 'text/csv' };
  }
  if (type !== '' && type !== 'application/json') {
    throw new HttpError('unsupported_media_type', 'Send application/json or text/csv.');
  }
  return jsonSource(req);
}
