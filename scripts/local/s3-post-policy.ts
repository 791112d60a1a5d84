import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// S3 in front of s3rver: s3rver stores browser-form uploads (POST Object) but ignores their policy
// ("unimplemented"), so a presigned POST's content-length-range, expiration and field conditions
// would not hold locally. This server passes every request through to s3rver and checks a POST
// Object against its policy first, answering as S3 does (400 EntityTooLarge / EntityTooSmall,
// 403 AccessDenied for an expired or violated policy). A file over the range is refused while it
// streams in and never reaches s3rver. Like s3rver (allowMismatchedSignatures), it does not verify
// signatures: locally the credentials are whatever the caller has.
//
// The dashboard uploads list files from the browser, from the local server's origin: the front
// answers CORS as a bucket with a CORS rule does (the stack gives the jobs bucket one). Any loopback
// origin is allowed: the front listens on loopback only, its port is chosen before the server's,
// and what authorises an upload is the presigned policy, not the origin.

/** S3 refuses a POST whose fields before the file exceed 20 KB (MaxPostPreDataLengthExceeded). */
const PRE_DATA_LIMIT = 20 * 1024;
/** A POST without a content-length-range is still bounded here (S3's single-upload limit is 5 GB). */
const NO_RANGE_LIMIT = 64 * 1024 * 1024;
/** Form fields the policy need not mention (S3: POST Object, "Creating a POST policy"). */
const EXEMPT_FIELDS = new Set(['file', 'policy', 'x-amz-signature']);

export interface S3PolicyFront {
  url: string;
  close(): Promise<void>;
}

class PolicyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string | number> = {},
  ) {
    super(message);
  }
}

function xmlError(res: ServerResponse, err: PolicyError): void {
  const extra = Object.entries(err.extra)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('');
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${err.code}</Code><Message>${err.message}</Message>${extra}</Error>`;
  res.writeHead(err.status, {
    'Content-Type': 'application/xml',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    ...corsHeaders(res.req),
  });
  res.end(body);
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The request's Origin when it is a page on this machine (the dashboard), else undefined. */
function allowedOrigin(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  if (!origin) return undefined;
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) ? origin : undefined;
  } catch {
    return undefined;
  }
}

/** What S3 adds to an answer for a request its CORS rule allows. */
function corsHeaders(req: IncomingMessage): Record<string, string> {
  const origin = allowedOrigin(req);
  return origin ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' } : {};
}

/** A preflight, answered as S3 does: 200 with the rule's methods, else 403. */
function preflight(req: IncomingMessage, res: ServerResponse): void {
  const origin = allowedOrigin(req);
  const method = String(req.headers['access-control-request-method'] ?? '').toUpperCase();
  if (!origin || !['GET', 'HEAD', 'POST'].includes(method)) {
    const body = 'CORSResponse: This CORS request is not allowed.';
    res.writeHead(403, {
      'Content-Type': 'text/plain',
      'Content-Length': String(body.length),
      Vary: 'Origin',
    });
    res.end(body);
    return;
  }
  const headers: Record<string, string> = {
    ...corsHeaders(req),
    'Access-Control-Allow-Methods': 'GET, HEAD, POST',
    'Access-Control-Max-Age': '3000',
    'Content-Length': '0',
  };
  const asked = req.headers['access-control-request-headers'];
  if (asked) headers['Access-Control-Allow-Headers'] = asked;
  res.writeHead(200, headers);
  res.end();
}

type Condition = Record<string, string> | [string, ...unknown[]];

interface Policy {
  expiration: string;
  conditions: Condition[];
}

interface SizeRange {
  min: number;
  max: number;
}

/** Checks the form fields against the policy; returns the file size range it allows. */
export function checkPolicy(fields: Map<string, string>, bucket: string, now: Date): SizeRange {
  const encoded = fields.get('policy');
  if (!encoded) throw new PolicyError(403, 'AccessDenied', 'Bucket POST must contain a field named Policy');
  let policy: Policy;
  try {
    policy = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Policy;
  } catch {
    throw new PolicyError(400, 'InvalidPolicyDocument', 'Invalid Policy: Invalid JSON.');
  }
  if (!(Date.parse(policy.expiration) > now.getTime())) {
    throw new PolicyError(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
  }
  const value = (name: string) => (name === 'bucket' ? bucket : (fields.get(name) ?? ''));
  const covered = new Set<string>();
  let range: SizeRange = { min: 0, max: NO_RANGE_LIMIT };
  for (const condition of policy.conditions ?? []) {
    if (Array.isArray(condition)) {
      const [op, a, b] = condition;
      if (op === 'content-length-range') {
        range = { min: Number(a), max: Number(b) };
        continue;
      }
      const name = String(a).replace(/^\$/, '').toLowerCase();
      covered.add(name);
      const ok =
        op === 'eq' ? value(name) === String(b) : op === 'starts-with' && value(name).startsWith(String(b));
      if (!ok) throw conditionFailed(condition);
    } else {
      for (const [k, v] of Object.entries(condition)) {
        covered.add(k.toLowerCase());
        if (value(k.toLowerCase()) !== v) throw conditionFailed(condition);
      }
    }
  }
  for (const name of fields.keys()) {
    if (!EXEMPT_FIELDS.has(name) && !name.startsWith('x-ignore-') && !covered.has(name)) {
      throw new PolicyError(403, 'AccessDenied', `Invalid according to Policy: Extra input fields: ${name}`);
    }
  }
  return range;
}

function conditionFailed(condition: Condition): PolicyError {
  return new PolicyError(
    403,
    'AccessDenied',
    `Invalid according to Policy: Policy Condition failed: ${JSON.stringify(condition)}`,
  );
}

/** Where the file part's content starts, and where the fields before it end; null until seen. */
function findFilePart(buf: Buffer, boundary: string): { fieldsEnd: number; fileStart: number } | null {
  const delimiter = `--${boundary}`;
  let start = buf.indexOf(delimiter);
  while (start >= 0) {
    const headersStart = start + delimiter.length + 2;
    const headersEnd = buf.indexOf('\r\n\r\n', headersStart);
    if (headersEnd < 0) return null;
    const headers = buf.subarray(headersStart, headersEnd).toString('latin1');
    if (/;\s*name="file"/i.test(headers)) return { fieldsEnd: start, fileStart: headersEnd + 4 };
    const next = buf.indexOf(`\r\n${delimiter}`, headersEnd);
    if (next < 0) return null;
    start = next + 2;
  }
  return null;
}

async function formFields(head: Buffer, contentType: string, boundary: string): Promise<Map<string, string>> {
  const fields = new Map<string, string>();
  if (head.indexOf(`--${boundary}`) < 0) return fields;
  const form = await new Response(Buffer.concat([head, Buffer.from(`--${boundary}--\r\n`)]), {
    headers: { 'content-type': contentType },
  }).formData();
  for (const [name, value] of form) if (typeof value === 'string') fields.set(name.toLowerCase(), value);
  return fields;
}

export async function startS3PostPolicy(upstream: string): Promise<S3PolicyFront> {
  // A new loopback connection per request: a kept-alive socket that the emulator closes as idle
  // (Node's 5 s keep-alive timeout) can be picked for the next request just before its close is
  // read, and that request fails with ECONNRESET (a 502 for a 6 MB upload on a busy 2-core run).
  const agent = new Agent({ keepAlive: false });

  function pass(req: IncomingMessage, res: ServerResponse, body?: Buffer): void {
    const headers = { ...req.headers };
    if (body) {
      headers['content-length'] = String(body.length);
      delete headers['transfer-encoding'];
    }
    const out = request(new URL(req.url ?? '/', upstream), { method: req.method, headers, agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, { ...up.headers, ...corsHeaders(req) });
      up.pipe(res);
    });
    // A client that goes away (a GET abandoned after its headers) aborts the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    out.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`s3 upstream failed: ${err.message}`);
    });
    if (body) out.end(body);
    else req.pipe(out);
  }

  async function postObject(req: IncomingMessage, res: ServerResponse, bucket: string): Promise<void> {
    const contentType = req.headers['content-type'] ?? '';
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType)?.slice(1).find(Boolean);
    if (!boundary) return pass(req, res);
    const chunks: Buffer[] = [];
    let total = 0;
    let part: { fieldsEnd: number; fileStart: number } | null = null;
    let range: SizeRange | undefined;
    try {
      // Not destroyed on an early exit: the refusal is written, then the rest of the body drained.
      for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        total += chunk.length;
        if (!part) {
          const head = Buffer.concat(chunks);
          part = findFilePart(head, boundary);
          if (!part) {
            if (total > PRE_DATA_LIMIT) {
              throw new PolicyError(
                400,
                'MaxPostPreDataLengthExceeded',
                'Your POST request fields preceding the upload file were too large.',
              );
            }
            continue;
          }
          const fields = await formFields(head.subarray(0, part.fieldsEnd), contentType, boundary);
          range = checkPolicy(fields, bucket, new Date());
        }
        // The file is followed by "\r\n--boundary--\r\n": more than that past the limit is too much.
        const tail = boundary.length + 8;
        if (total - part.fileStart > range!.max + tail) {
          throw new PolicyError(
            400,
            'EntityTooLarge',
            'Your proposed upload exceeds the maximum allowed size',
            {
              MaxSizeAllowed: range!.max,
            },
          );
        }
      }
      if (!part || !range) {
        throw new PolicyError(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
      }
      const body = Buffer.concat(chunks);
      const end = body.lastIndexOf(`\r\n--${boundary}`);
      const size = (end >= part.fileStart ? end : body.length) - part.fileStart;
      if (size > range.max) {
        throw new PolicyError(
          400,
          'EntityTooLarge',
          'Your proposed upload exceeds the maximum allowed size',
          {
            ProposedSize: size,
            MaxSizeAllowed: range.max,
          },
        );
      }
      if (size < range.min) {
        throw new PolicyError(
          400,
          'EntityTooSmall',
          'Your proposed upload is smaller than the minimum allowed size',
          {
            ProposedSize: size,
            MinSizeAllowed: range.min,
          },
        );
      }
      pass(req, res, body);
    } catch (err) {
      if (!(err instanceof PolicyError)) throw err;
      xmlError(res, err);
      // Let the client finish sending (it reads the answer afterwards); nothing more is kept.
      req.resume();
    }
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    const bucket = /^\/([^/]+)\/?$/.exec(path)?.[1];
    const isForm = (req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      req.resume();
      preflight(req, res);
    } else if (req.method === 'POST' && bucket && isForm) {
      postObject(req, res, decodeURIComponent(bucket)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(`s3 front failed: ${(err as Error).message}`);
      });
    } else pass(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
