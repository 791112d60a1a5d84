import busboy from 'busboy';
import { HttpError, ValidationError } from '../lib/http/errors.js';

// A `multipart/form-data` POST /v1/email/jobs body (RFC 7578), as `curl -F file=@list.csv` and
// browser forms send it: exactly one file part carries the list; other (text) fields are ignored.
// busboy does the parsing (boundaries, part headers, RFC 5987 `filename*`); the body is already
// whole in memory (API Gateway hands it over base64-encoded, like every body), so the limits below
// bound what is copied out of it, not what is read.

/** The file part of a multipart body: its bytes as sent (plain or gzip) and how it was labelled. */
export interface FilePart {
  /** The form field name (`file` for `curl -F file=@list.csv`). */
  field: string;
  /** The part's filename without any path, or null when it has none. */
  filename: string | null;
  /** The part's media type, lower-cased, without parameters ('application/octet-stream' when absent). */
  mediaType: string;
  bytes: Buffer;
}

/** A form with one file and a few fields; more is not a list upload. */
const MAX_PARTS = 20;
/** Text fields are ignored; this bounds what busboy buffers of each. */
const MAX_FIELD_BYTES = 1024;

export const MULTIPART_EXAMPLE = 'curl -F file=@list.csv';

function malformed(detail: string): ValidationError {
  return new ValidationError('invalid_body', `The multipart/form-data body could not be read: ${detail}.`);
}

/**
 * The one file part of a multipart/form-data body: 400 invalid_body for a body that does not
 * parse, has no file part or more than one, 413 body_too_large for a file over `maxFileBytes`.
 */
export async function readFilePart(
  contentType: string,
  body: Buffer,
  maxFileBytes: number,
): Promise<FilePart> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      // Browsers and curl send UTF-8 filenames without RFC 5987 encoding.
      defParamCharset: 'utf8',
      limits: { files: 1, parts: MAX_PARTS, fieldSize: MAX_FIELD_BYTES, fileSize: maxFileBytes },
    });
  } catch (err) {
    // No boundary parameter, or not a multipart type at all.
    throw malformed((err as Error).message.replace(/^Multipart: /, '').toLowerCase());
  }
  return new Promise<FilePart>((resolve, reject) => {
    let part: FilePart | undefined;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      parser.destroy();
      reject(err);
    };
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        fail(new HttpError('body_too_large', `The file is larger than ${maxFileBytes / 1024 / 1024} MB.`)),
      );
      stream.on('error', (err: Error) => fail(malformed(err.message.toLowerCase())));
      stream.on('end', () => {
        part = {
          field,
          filename: info.filename ?? null,
          mediaType: (info.mimeType || 'application/octet-stream').toLowerCase(),
          bytes: Buffer.concat(chunks),
        };
      });
    });
    parser.on('filesLimit', () =>
      fail(
        new ValidationError(
          'invalid_body',
          `Send one file part, not several (${MULTIPART_EXAMPLE}); one list is one job.`,
        ),
      ),
    );
    parser.on('partsLimit', () => fail(malformed(`more than ${MAX_PARTS} parts`)));
    parser.on('error', (err: Error) => fail(malformed(err.message.toLowerCase())));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      if (part) resolve(part);
      else
        reject(
          new ValidationError(
            'invalid_body',
            `The multipart/form-data body has no file part: send the list as a file (${MULTIPART_EXAMPLE}).`,
          ),
        );
    });
    parser.end(body);
  });
}
