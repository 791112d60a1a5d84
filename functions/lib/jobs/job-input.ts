import { gunzipSync } from 'node:zlib';
import * as z from 'zod';
import { mediaType, readJsonBody } from '../http/body.js';
import { HttpError, ValidationError } from '../http/errors.js';
import type { HttpRequest } from '../http/request.js';
import { CsvInputError, emailsFromCsv } from './csv-input.js';
import { JOB_MAX_ROWS } from './job.js';

// POST /v1/email/jobs bodies: JSON {emails, filename?}, JSON {uploadId, filename?} (a CSV put
// to an upload URL first, for files too big for a Lambda invocation), or text/csv. Either may be
// sent with Content-Encoding: gzip. Limits: 10 MB of CSV (after decompression), 100,000 rows.

export const CSV_LIMIT_BYTES = 10 * 1024 * 1024;
const FILENAME = z.string().max(255).optional();

export const JobJsonBody = z.object({
  emails: z.array(z.string()).describe('Up to 100,000 addresses.'),
  filename: FILENAME.describe('Shown back on the job; optional.'),
});
export const JobUploadBody = z.object({
  uploadId: z
    .string()
    .regex(/^[0-9a-f-]{36}$/)
    .describe('From POST /v1/email/jobs/uploads, after the CSV was PUT.'),
  filename: FILENAME,
});

export type JobSource =
  | { kind: 'emails'; emails: string[]; filename: string | null; body: Buffer | string; contentType: string }
  | { kind: 'upload'; uploadId: string; filename: string | null };

function decoded(req: HttpRequest): Buffer {
  const body = req.body ?? Buffer.alloc(0);
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return body;
  if (encoding !== 'gzip')
    throw new HttpError(
      'unsupported_media_type',
      `Content-Encoding ${encoding} is not supported (use gzip).`,
    );
  return gunzipList(body);
}

/** A gzip list, decompressed up to the CSV limit: 413 beyond it, 400 when it is not valid gzip. */
export function gunzipList(bytes: Buffer): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: CSV_LIMIT_BYTES + 1 });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new HttpError('body_too_large', 'The decompressed body is larger than 10 MB.');
    }
    throw new ValidationError('invalid_body', 'The gzip body could not be decompressed.');
  }
}

export function checkRowCount(emails: readonly string[]): void {
  if (emails.length === 0) throw new ValidationError('empty_job', 'The list has no addresses.');
  if (emails.length > JOB_MAX_ROWS) {
    throw new ValidationError(
      'job_too_large',
      `A job takes at most ${JOB_MAX_ROWS} addresses; got ${emails.length}.`,
    );
  }
}

export function csvEmails(bytes: Buffer): string[] {
  if (bytes.length > CSV_LIMIT_BYTES) throw new HttpError('body_too_large', 'The CSV is larger than 10 MB.');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ValidationError('invalid_body', 'The CSV must be UTF-8.');
  }
  try {
    return emailsFromCsv(text);
  } catch (err) {
    if (err instanceof CsvInputError) throw new ValidationError('invalid_body', err.message);
    throw err;
  }
}

export function readJobSource(req: HttpRequest): JobSource {
  const type = mediaType(req);
  if (type === 'text/csv') {
    const body = decoded(req);
    const emails = csvEmails(body);
    checkRowCount(emails);
    const filename = req.query.filename ?? null;
    if (filename !== null && filename.length > 255)
      throw new ValidationError('invalid_body', 'filename is too long.');
    return { kind: 'emails', emails, filename, body, contentType: 'text/csv' };
  }
  if (type !== '' && type !== 'application/json') {
    throw new HttpError('unsupported_media_type', 'Send application/json or text/csv.');
  }
  const json = readJsonBody(
    { ...req, body: decoded(req), headers: { ...req.headers, 'content-type': 'application/json' } },
    CSV_LIMIT_BYTES,
  );
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
    if (Array.isArray(emails) && emails.length > JOB_MAX_ROWS) checkRowCount(emails as string[]);
    throw new ValidationError('invalid_body', 'Expected {"emails": string[], "filename"?: string}.');
  }
  checkRowCount(parsed.data.emails);
  const filename = parsed.data.filename ?? null;
  return {
    kind: 'emails',
    emails: parsed.data.emails,
    filename,
    body: JSON.stringify(parsed.data.emails),
    contentType: 'application/json',
  };
}
