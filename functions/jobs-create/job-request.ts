import { looksGzipped } from '../lib/gzip.js';
import { declaresGzip, mediaType } from '../lib/http/body.js';
import { HttpError, ValidationError } from '../lib/http/errors.js';
import type { HttpRequest } from '../lib/http/request.js';
import { filenameProblem } from '../lib/jobs/filename.js';
import { CSV_LIMIT_BYTES, csvJobSource, type JobSource, jsonJobSource } from '../lib/jobs/job-input.js';
import { type FilePart, MULTIPART_EXAMPLE, readFilePart } from './multipart.js';

// The HTTP side of a POST /v1/email/jobs body: its media type (application/json, text/csv or
// multipart/form-data with one file part) and its Content-Encoding (gzip or none); ?filename= and
// the Idempotency-Key header are the contract's (contract.ts). The list itself is read by
// lib/jobs/job-input.ts, whose refusals (JobInputError) the HTTP layer answers with the error code
// of the same name (lib/http/middleware/domain-errors.ts).

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
  return declaresGzip(req) && looksGzipped(body);
}

/** The name a form's file part gives itself, held to the same rules as ?filename=. */
function checkedFilename(filename: string | null): string | null {
  const problem = filenameProblem(filename);
  if (problem) throw new ValidationError('invalid_body', problem);
  return filename;
}

function isJsonPart(part: FilePart): boolean {
  const type = part.mediaType;
  if (type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))) return true;
  return /\.json(\.gz)?$/i.test(part.filename ?? '');
}

/**
 * The list in the file part of a multipart/form-data body. JSON when the part says so (its type,
 * or a .json / .json.gz filename), CSV otherwise (curl labels a .csv file
 * application/octet-stream); gzip when the file is (its magic bytes: neither CSV nor JSON can
 * start with them). The file, not the form around it, becomes the job's upload.
 */
async function multipartJobSource(
  req: HttpRequest,
  body: Buffer,
  filename: string | null,
): Promise<JobSource> {
  if (sentGzipped(req, body)) {
    throw new HttpError(
      'unsupported_media_type',
      `Content-Encoding gzip is not supported for multipart/form-data: gzip the file itself (curl -F file=@list.csv.gz).`,
    );
  }
  const part = await readFilePart(req.headers['content-type'] ?? '', body, CSV_LIMIT_BYTES);
  const gzipped = looksGzipped(part.bytes);
  const partName = filename ?? checkedFilename(part.filename);
  if (isJsonPart(part)) {
    const source = await jsonJobSource(part.bytes, gzipped);
    return { ...source, filename: source.filename ?? partName };
  }
  return csvJobSource(part.bytes, gzipped, partName);
}

/**
 * The list a POST /v1/email/jobs request sends: 415 for another media type or encoding. `filename`
 * is the validated ?filename=, which names a CSV or a form's file.
 */
export async function readJobSource(req: HttpRequest, filename: string | null): Promise<JobSource> {
  const type = mediaType(req);
  const body = req.body ?? Buffer.alloc(0);
  if (type === 'text/csv') return csvJobSource(body, sentGzipped(req, body), filename);
  if (type === 'multipart/form-data') return multipartJobSource(req, body, filename);
  if (type !== '' && type !== 'application/json') {
    throw new HttpError(
      'unsupported_media_type',
      `Content-Type ${type} is not accepted. Send the list as a file (${MULTIPART_EXAMPLE}), as text/csv ` +
        `(curl -H 'Content-Type: text/csv' --data-binary @list.csv) or as JSON {"emails": [...]}.`,
    );
  }
  return jsonJobSource(body, sentGzipped(req, body));
}
