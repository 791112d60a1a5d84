import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { readFilePart } from '../../../functions/jobs-create/multipart.js';
import { HttpError } from '../../../functions/lib/http/errors.js';

const LIMIT = 1024;
const BOUNDARY = '------------------------d74496d66958873e';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** A body as `curl -F` writes it: CRLF line ends, each part's headers, the closing boundary. */
function curlBody(parts: { headers: string[]; content: string | Buffer }[]): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    pieces.push(Buffer.from(`--${BOUNDARY}\r\n${part.headers.join('\r\n')}\r\n\r\n`));
    pieces.push(Buffer.from(part.content));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

const csvPart = (name = 'file', filename = 'list.csv', content = 'email\na@x.example\n') => ({
  headers: [
    `Content-Disposition: form-data; name="${name}"; filename="${filename}"`,
    'Content-Type: application/octet-stream',
  ],
  content,
});

async function refusal(promise: Promise<unknown>): Promise<HttpError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpError);
  return err as HttpError;
}

describe('multipart', () => {
  describe('multipart/form-data list uploads', () => {
    test('the file part of `curl -F file=@list.csv` is read with its name, type and bytes', async () => {
      const part = await readFilePart(TYPE, curlBody([csvPart()]), LIMIT);
      expect(part).toEqual({
        field: 'file',
        filename: 'list.csv',
        mediaType: 'application/octet-stream',
        bytes: Buffer.from('email\na@x.example\n'),
      });
    });

    test('the only file part is the list whatever its field name; text fields are ignored', async () => {
      const body = curlBody([
        { headers: ['Content-Disposition: form-data; name="note"'], content: 'hello' },
        csvPart('upload', 'contacts.csv'),
      ]);
      const part = await readFilePart(TYPE, body, LIMIT);
      expect(part.field).toBe('upload');
      expect(part.filename).toBe('contacts.csv');
    });

    test('a form as fetch builds it is read the same way', async () => {
      const form = new FormData();
      form.append('file', new Blob(['email\nb@x.example\n'], { type: 'text/csv' }), 'ünïcode list.csv');
      const res = new Response(form);
      const part = await readFilePart(
        res.headers.get('content-type')!,
        Buffer.from(await res.arrayBuffer()),
        LIMIT,
      );
      expect(part).toMatchObject({ filename: 'ünïcode list.csv', mediaType: 'text/csv' });
      expect(part.bytes.toString()).toBe('email\nb@x.example\n');
    });

    test('a filename with a path keeps only its last segment', async () => {
      const part = await readFilePart(TYPE, curlBody([csvPart('file', 'C:\\Users\\ann\\list.csv')]), LIMIT);
      expect(part.filename).toBe('list.csv');
    });

    test('more than one file part is refused: one list is one job', async () => {
      const err = await refusal(readFilePart(TYPE, curlBody([csvPart(), csvPart('file', 'b.csv')]), LIMIT));
      expect(err.status).toBe(400);
      expect(err.code).toBe('invalid_body');
      expect(err.message).toContain('one file part');
    });

    test('a form without a file part is refused with the curl line to use', async () => {
      const body = curlBody([
        { headers: ['Content-Disposition: form-data; name="emails"'], content: 'a@x.example' },
      ]);
      const err = await refusal(readFilePart(TYPE, body, LIMIT));
      expect(err.code).toBe('invalid_body');
      expect(err.message).toContain('curl -F file=@list.csv');
    });

    test('a file over the limit is 413 body_too_large', async () => {
      const err = await refusal(
        readFilePart(TYPE, curlBody([csvPart('file', 'big.csv', 'a'.repeat(LIMIT + 1))]), LIMIT),
      );
      expect(err.status).toBe(413);
      expect(err.code).toBe('body_too_large');
    });

    test('a body without a boundary, cut short or with a broken part header is 400 invalid_body', async () => {
      const whole = curlBody([csvPart()]);
      for (const [type, body] of [
        ['multipart/form-data', whole],
        [TYPE, whole.subarray(0, whole.length - 30)],
        [TYPE, Buffer.from(`--${BOUNDARY}\r\nContent-Disposition form-data\r\n\r\nx\r\n--${BOUNDARY}--\r\n`)],
        [TYPE, Buffer.alloc(0)],
      ] as const) {
        const err = await refusal(readFilePart(type, body, LIMIT));
        expect({ status: err.status, code: err.code }).toEqual({ status: 400, code: 'invalid_body' });
      }
    });

    test('any bytes are a file part or an HttpError, never another exception', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.uint8Array({ maxLength: 300 }),
            fc
              .array(
                fc.constantFrom(
                  `--${BOUNDARY}`,
                  '\r\n',
                  'Content-Disposition: form-data; name="file"; filename="a"',
                  '--',
                  'x',
                ),
              )
              .map((pieces) => Buffer.from(pieces.join(''))),
          ),
          async (bytes) => {
            const outcome = await readFilePart(TYPE, Buffer.from(bytes), LIMIT).then(
              (part) => Buffer.isBuffer(part.bytes),
              (err: unknown) => err,
            );
            if (outcome !== true) expect(outcome).toBeInstanceOf(HttpError);
          },
        ),
        { numRuns: 300 },
      );
    });
  });
});
