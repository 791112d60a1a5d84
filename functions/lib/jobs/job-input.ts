import { createGunzip } from 'node:zlib';
import { gunzipWithinAsync } from '../gzip.js';
import { parseJsonBody } from '../json/syntax-error.js';
import { withoutBom } from '../utf8.js';
import * as z from '../zod.js';
import { CSV_SLICE_BYTES, CsvInputError, readCsvEmails } from './csv-input.js';
import { FILENAME_MAX, filenameProblem } from './filename.js';
import { JOB_MAX_ROWS } from './job.js';
import { JobInputError } from './job-errors.js';
import { scanJobJson } from './job-json-scan.js';

// The list of a POST /v1/email/jobs body: JSON {emails, filename?}, JSON {uploadId, filename?} (a
// CSV posted to an upload URL first, for files too big for a Lambda invocation), or CSV. Either may
// be gzip-compressed. Limits: 10 MB of CSV or JSON (after decompression), 100,000 rows. Reading the
// HTTP request (media type, Content-Encoding, ?filename=) is the route's (jobs-create/job-request.ts).
//
// Work and memory are bounded by the limits, not by what a body claims to be: a CSV is
// decompressed and parsed as a stream of slices and refused at its 100,001st address; a JSON body
// is counted (job-json-scan.ts) before JSON.parse builds anything. What is held is the body as
// received (stored as the job's upload, never re-serialised), one decompressed copy for JSON, and
// the addresses.

export const CSV_LIMIT_BYTES = 10 * 1024 * 1024;
const FILENAME = z.optional(z.string().check(z.maxLength(FILENAME_MAX)));
/** Room in a JSON body for values that are not addresses (filename, unknown members). */
const JSON_OTHER_VALUES = 1_000;
const JSON_MAX_DEPTH = 32;

export const JobJsonBody = z.object({
  emails: z.array(z.string()).check(z.describe('Up to 100,000 addresses.')),
  filename: FILENAME.check(z.describe('Shown back on the job; optional.')),
});
export const JobUploadBody = z.object({
  uploadId: z
    .string()
    .check(
      z.regex(/^[0-9a-f-]{36}$/),
      z.describe('From POST /v1/email/jobs/uploads, after the CSV was posted to its upload URL.'),
    ),
  filename: FILENAME,
});

export type JobSource =
  | { kind: 'emails'; emails: string[]; filename: string | null; body: Buffer; contentType: string }
  | { kind: 'upload'; uploadId: string; filename: string | null };

const tooLarge = () => new JobInputError('body_too_large', 'The decompressed body is larger than 10 MB.');
const notGzip = () => new JobInputError('invalid_body', 'The gzip body could not be decompressed.');

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
    if (err instanceof JobInputError) throw err;
    throw notGzip();
  } finally {
    // Reached too when the reader stops early (a row bomb): the rest is never inflated.
    stream.destroy();
  }
}

/** A whole gzip body, decompressed off the event loop (zlib's thread pool), up to the limit. */
async function gunzipWhole(bytes: Buffer): Promise<Buffer> {
  const whole = await gunzipWithinAsync(bytes, CSV_LIMIT_BYTES);
  if (whole === 'too_large') throw tooLarge();
  if (whole === 'not_gzip') throw notGzip();
  return whole;
}

export function checkRowCount(emails: readonly unknown[]): void {
  if (emails.length === 0) throw new JobInputError('empty_job', 'The list has no addresses.');
  if (emails.length > JOB_MAX_ROWS) {
    throw new JobInputError(
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
    throw new JobInputError('body_too_large', 'The CSV is larger than 10 MB.');
  }
  let emails: string[];
  try {
    emails = await (gzipped ? gzipCsvEmails(bytes) : readCsvEmails([bytes], { maxEmails: JOB_MAX_ROWS }));
  } catch (err) {
    if (!(err instanceof CsvInputError)) throw err;
    throw new JobInputError(err.problem === 'too_many_rows' ? 'job_too_large' : 'invalid_body', err.message);
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
        if (sizeErr instanceof JobInputError && sizeErr.problem === 'body_too_large') throw sizeErr;
      }
    }
    throw err;
  } finally {
    await inflated.return(undefined);
  }
}

/** JSON bytes parsed: 400 `invalid_json` when empty, not UTF-8 or not JSON, as every JSON body. */
function parseJson(bytes: Buffer): unknown {
  const parsed = parseJsonBody(bytes);
  if (!parsed.ok) throw new JobInputError('invalid_json', parsed.message);
  return parsed.value;
}

/** The list of a JSON body (gzip-compressed when `gzipped`): {emails, filename?} or {uploadId, filename?}. */
export async function jsonJobSource(body: Buffer, gzipped: boolean): Promise<JobSource> {
  const text = withoutBom(gzipped ? await gunzipWhole(body) : body);
  if (text.length > CSV_LIMIT_BYTES)
    throw new JobInputError('body_too_large', 'The body is larger than 10 MB.');
  const verdict = scanJobJson(text, {
    emails: JOB_MAX_ROWS,
    values: JOB_MAX_ROWS + JSON_OTHER_VALUES,
    depth: JSON_MAX_DEPTH,
  });
  if (verdict === 'too_many_emails') {
    throw new JobInputError(
      'job_too_large',
      `A job takes at most ${JOB_MAX_ROWS} addresses; this list has more.`,
    );
  }
  if (verdict !== 'ok') {
    throw new JobInputError(
      'invalid_body',
      verdict === 'too_deep'
        ? `The body nests deeper than ${JSON_MAX_DEPTH} levels.`
        : 'The body holds more values than a list job can.',
    );
  }
  const json = parseJson(text);
  if (json !== null && typeof json === 'object' && 'uploadId' in json) {
    const parsed = JobUploadBody.safeParse(json);
    if (!parsed.success)
      throw new JobInputError(
        'invalid_body',
        'uploadId must be the id returned by POST /v1/email/jobs/uploads.',
      );
    checkFilename(parsed.data.filename);
    return { kind: 'upload', uploadId: parsed.data.uploadId, filename: parsed.data.filename ?? null };
  }
  const parsed = JobJsonBody.safeParse(json);
  if (!parsed.success) {
    const emails = (json as { emails?: unknown } | null)?.emails;
    if (Array.isArray(emails) && emails.length > JOB_MAX_ROWS) checkRowCount(emails);
    throw new JobInputError('invalid_body', 'Expected {"emails": string[], "filename"?: string}.');
  }
  checkFilename(parsed.data.filename);
  // Blank entries are skipped, as a CSV's rows whose email cell is empty: they are no address, so
  // neither a row of the results nor a charge; a list of only blanks is empty_job.
  const emails = parsed.data.emails.filter((email) => email.trim() !== '');
  checkRowCount(emails);
  // The body as received (compressed or not) is the job's upload: no re-serialised copy.
  return {
    kind: 'emails',
    emails,
    filename: parsed.data.filename ?? null,
    body,
    contentType: 'application/json',
  };
}

/** A JSON body's filename, held to the rules of ?filename= (filename.ts). */
function checkFilename(filename: string | undefined): void {
  const problem = filenameProblem(filename);
  if (problem) throw new JobInputError('invalid_body', problem);
}

/** The list of a CSV body (gzip-compressed when `gzipped`), named `filename`. */
export async function csvJobSource(
  body: Buffer,
  gzipped: boolean,
  filename: string | null,
): Promise<JobSource> {
  const emails = await csvEmails(body, gzipped);
  return { kind: 'emails', emails, filename, body, contentType: 'text/csv' };
}
