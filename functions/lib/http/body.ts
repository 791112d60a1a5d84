import { gunzipWithin, looksGzipped } from '../gzip.js';
import { parseJsonBody } from '../json/syntax-error.js';
import { withoutBom } from '../utf8.js';
import { type ErrorCode, HttpError } from './errors.js';
import type { HttpRequest } from './request.js';

/** JSON bodies of the synchronous routes are small; 1 MiB leaves room for 100 long addresses. */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

/** The media type of the request without parameters, lower-cased; '' when absent. */
export function mediaType(req: HttpRequest): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Whether the request says its body is gzip-compressed: false without a Content-Encoding (or with
 * `identity`), 415 `unsupported_media_type` for any coding but gzip (API Gateway decompresses gzip
 * and deflate, the API reads gzip only, as docs/api.md says).
 */
export function declaresGzip(req: HttpRequest): boolean {
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return false;
  if (encoding !== 'gzip')
    throw new HttpError(
      'unsupported_media_type',
      `Content-Encoding ${encoding} is not supported (use gzip).`,
    );
  return true;
}

/**
 * Reads a JSON request body: 415 for a declared non-JSON type (a missing Content-Type is read as
 * JSON, as curl users expect) or a coding other than gzip, 413 over the limit (decompressed), 400
 * `invalid_json` when it does not parse (naming the line and column where it stops being JSON), its
 * bytes read by decodedBody.
 */
export function readJsonBody(req: HttpRequest, limitBytes = JSON_BODY_LIMIT_BYTES): unknown {
  const type = mediaType(req);
  if (type !== '' && !isJsonMediaType(type)) {
    throw new HttpError('unsupported_media_type', `Content-Type must be application/json, not ${type}.`);
  }
  return parseJsonBytes(decodedBody(req, limitBytes, 'invalid_json'), limitBytes);
}

/**
 * The bytes of a body as its sender wrote them: 415 for a coding other than gzip, 413 over the limit
 * (decompressed), `invalid` (400) for a gzip body that does not decompress. A body labelled gzip is
 * decompressed when its bytes are gzip and read as sent when API Gateway already decompressed it
 * (it does so above the REST API's minimumCompressionSize only).
 */
export function decodedBody(req: HttpRequest, limitBytes: number, invalid: ErrorCode): Buffer | null {
  const body = req.body;
  if (!declaresGzip(req) || !body || !looksGzipped(body)) {
    if (body && body.length > limitBytes) throw tooLarge(limitBytes);
    return body;
  }
  const decompressed = gunzipWithin(body, limitBytes);
  if (decompressed === 'too_large') throw tooLarge(limitBytes);
  if (decompressed === 'not_gzip') throw new HttpError(invalid, 'The gzip body could not be decompressed.');
  return decompressed;
}

const tooLarge = (limitBytes: number) =>
  new HttpError('body_too_large', `The body is larger than ${limitBytes} bytes.`);

/**
 * JSON from the bytes of a body (e.g. once decompressed), a leading UTF-8 BOM ignored: 400
 * `invalid_json`, 413 over the limit.
 */
export function parseJsonBytes(body: Buffer | null, limitBytes = JSON_BODY_LIMIT_BYTES): unknown {
  if (body && body.length > limitBytes) throw tooLarge(limitBytes);
  const parsed = parseJsonBody(withoutBom(body ?? Buffer.alloc(0)));
  if (!parsed.ok) throw new HttpError('invalid_json', parsed.message);
  return parsed.value;
}
