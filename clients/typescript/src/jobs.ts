import { nonEmpty } from './checks.js';
import { csvObjects } from './csv-rows.js';
import { NetintelError } from './errors.js';
import {
  attemptSignal,
  type CallOptions,
  checkedTimeout,
  malformedAnswer,
  sleep,
  type Transport,
  timeoutError,
} from './transport.js';
import type { CreatedJob, Job, JobPage, UploadTicket } from './types.js';

// List jobs: create (a body up to DIRECT_LIMIT_BYTES, or a presigned upload first), wait, results
// as parsed rows, list. `npm run jobs` is built on these.

/** Bodies up to this size go straight to POST /v1/email/jobs; larger ones through an upload URL. */
export const DIRECT_LIMIT_BYTES = 4 * 1024 * 1024;

/** A CSV file (Blob, File, bytes, text; gzip-compressed or not), or the addresses themselves. */
export type JobInput = Blob | ArrayBuffer | Uint8Array | string | string[];

export interface CreateProgress {
  phase: 'compressing' | 'uploading' | 'creating';
  /** Bytes sent in this phase (the compressed size when compressed). */
  bytes: number;
}

export interface CreateOptions extends CallOptions {
  filename?: string;
  onProgress?: (progress: CreateProgress) => void;
  /**
   * Makes a retried creation create one job, and be charged once, within 24 hours (default: a
   * random key per call, so the client's own retries are safe).
   */
  idempotencyKey?: string;
  /**
   * A receiver of this job's own (an https URL on a public host): its job.completed or job.failed
   * event is POSTed there, signed with the answer's `webhookSecret` (shown in that answer only).
   */
  webhookUrl?: string;
}

export interface WaitOptions extends CallOptions {
  onProgress?: (job: Job) => void;
  /** First wait between polls in ms (default 500); it doubles up to maxIntervalMs. */
  intervalMs?: number;
  /** Longest wait between polls in ms (default 5,000). */
  maxIntervalMs?: number;
}

const FINAL = new Set(['completed', 'failed', 'expired']);

function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b;
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function bytesOf(input: Exclude<JobInput, string[]>): Promise<Uint8Array> {
  if (typeof input === 'string') return new TextEncoder().encode(input);
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (input instanceof Blob) return new Uint8Array(await input.arrayBuffer());
  // A caller without the types (plain JavaScript): said plainly, before anything is sent.
  throw new TypeError(
    'jobs.create takes a CSV (text, a Blob or File, bytes) or an array of addresses, not ' +
      (input === null ? 'null' : typeof input),
  );
}

/**
 * `body` as the caller reads it, each read timed: no byte for `idleMs` (the call's timeoutMs) is the
 * client's `timeout`, a read that fails (the connection cut mid-file) a `network_error`, a body
 * that is not in its Content-Encoding an `invalid_response`, as every other failure of a call; a
 * cancel through `signal` keeps its reason.
 */
function timedDownload(
  body: ReadableStream<Uint8Array>,
  origin: string,
  idleMs: number,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let received = 0;
  const stop = () => void reader.cancel().catch(() => undefined);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      // Settles first when the server sends nothing for idleMs, or the caller cancels.
      const stalled = new Promise<'stalled'>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        onAbort = () => reject(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (idleMs !== Number.POSITIVE_INFINITY) timer = setTimeout(() => resolve('stalled'), idleMs);
      });
      try {
        const next = await Promise.race([reader.read(), stalled]);
        if (next === 'stalled') {
          stop();
          return controller.error(
            new NetintelError(
              0,
              'timeout',
              `The results download from ${origin} stalled: no byte within ${idleMs} ms after ${received} bytes`,
            ),
          );
        }
        if (next.done) return controller.close();
        received += next.value.byteLength;
        controller.enqueue(next.value);
      } catch (cause) {
        if (signal?.aborted) {
          stop();
          return controller.error(signal.reason);
        }
        const malformed = malformedAnswer(cause);
        controller.error(
          malformed
            ? new NetintelError(
                0,
                'invalid_response',
                `The results from ${origin} are not a file the client can read: ${malformed}`,
                { cause },
              )
            : new NetintelError(
                0,
                'network_error',
                `The results download from ${origin} was cut off after ${received} bytes`,
                { cause },
              ),
        );
      } finally {
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener('abort', onAbort);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

export class Jobs {
  /** `transport` refuses a publishable key (the client's key check, at each call). */
  constructor(private readonly transport: () => Transport) {}

  /**
   * Creates a list job (202: queued). A CSV is sent gzip-compressed when that is smaller; over
   * DIRECT_LIMIT_BYTES it goes to a presigned upload URL first (one API call carries at most 6 MB).
   * With `webhookUrl` the answer carries `webhookSecret`.
   */
  async create(input: JobInput, options: CreateOptions = {}): Promise<CreatedJob> {
    const { filename, webhookUrl, onProgress = () => undefined, signal, timeoutMs } = options;
    const call = { signal, timeoutMs };
    const headers = { 'Idempotency-Key': options.idempotencyKey ?? crypto.randomUUID() };
    const isList = Array.isArray(input);
    const plain = isList
      ? new TextEncoder().encode(JSON.stringify({ emails: input, ...(filename ? { filename } : {}) }))
      : await bytesOf(input);
    let body = plain;
    if (!isGzip(plain)) {
      onProgress({ phase: 'compressing', bytes: plain.length });
      const compressed = await gzip(plain);
      if (compressed.length < plain.length) body = compressed;
    }
    const encoding: Record<string, string> =
      body !== plain || isGzip(plain) ? { 'Content-Encoding': 'gzip' } : {};

    if (body.length <= DIRECT_LIMIT_BYTES) {
      onProgress({ phase: 'creating', bytes: body.length });
      return this.transport().json<CreatedJob>({
        ...call,
        method: 'POST',
        path: '/v1/email/jobs',
        query: isList ? { webhookUrl } : { filename, webhookUrl },
        headers: { ...headers, ...encoding, 'Content-Type': isList ? 'application/json' : 'text/csv' },
        body: body as BodyInit,
        idempotent: true,
      });
    }
    const ticket = await this.transport().json<UploadTicket>({
      ...call,
      method: 'POST',
      path: '/v1/email/jobs/uploads',
    });
    onProgress({ phase: 'uploading', bytes: body.length });
    // S3 POST Object: the presigned fields first, the file last.
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
    form.append('file', new Blob([body as BlobPart]), filename ?? 'list.csv');
    // One attempt under the call's timeout, as every API call: a URL that never answers fails.
    const transport = this.transport();
    const limit = checkedTimeout(timeoutMs ?? transport.options.timeoutMs);
    const attempt = attemptSignal(limit, signal);
    try {
      const posted = await transport.options.fetch(ticket.uploadUrl, {
        method: 'POST',
        body: form,
        signal: attempt.signal,
      });
      if (!posted.ok) {
        // The storage's own status (S3 answers XML): the code says whose refusal it was.
        throw new NetintelError(
          posted.status,
          'upload_refused',
          `The upload was refused: ${posted.status} ${(await posted.text()).slice(0, 500)}`,
        );
      }
    } catch (cause) {
      if (cause instanceof NetintelError) throw cause;
      if (signal?.aborted) throw signal.reason;
      if (attempt.timedOut()) throw timeoutError(ticket.uploadUrl, limit, cause);
      throw new NetintelError(
        0,
        'network_error',
        `Cannot reach the upload URL at ${new URL(ticket.uploadUrl).origin}`,
        { cause },
      );
    } finally {
      attempt.done();
    }
    onProgress({ phase: 'creating', bytes: body.length });
    return this.transport().json<CreatedJob>({
      ...call,
      method: 'POST',
      path: '/v1/email/jobs',
      query: { webhookUrl },
      headers,
      json: { uploadId: ticket.uploadId, ...(filename ? { filename } : {}) },
      idempotent: true,
    });
  }

  async get(id: string, options: CallOptions = {}): Promise<Job> {
    return this.transport().json<Job>({
      ...options,
      method: 'GET',
      path: `/v1/email/jobs/${encodeURIComponent(nonEmpty(id, 'a job id'))}`,
    });
  }

  /** Polls the job until it is completed, failed or expired, and returns it. */
  async wait(id: string, options: WaitOptions = {}): Promise<Job> {
    const { onProgress, intervalMs = 500, maxIntervalMs = 5_000, ...call } = options;
    for (let interval = intervalMs; ; interval = Math.min(maxIntervalMs, interval * 2)) {
      const job = await this.get(id, call);
      onProgress?.(job);
      if (FINAL.has(job.status)) return job;
      await sleep(interval, call.signal);
    }
  }

  /**
   * The results file as it arrives (text/csv, UTF-8): the redirect large results come from is
   * followed. 409 job_not_completed until the job is completed, 410 job_expired after 7 days. An
   * answer that is not text/csv (a proxy's page) is `invalid_response`; no byte for `timeoutMs`
   * while it downloads is a `timeout`.
   */
  async resultsFile(id: string, options: CallOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const transport = this.transport();
    const idleMs = checkedTimeout(options.timeoutMs ?? transport.options.timeoutMs);
    const res = await transport.send({
      ...options,
      method: 'GET',
      path: `/v1/email/jobs/${encodeURIComponent(nonEmpty(id, 'a job id'))}/results`,
      stream: true,
    });
    // The API's answer and the storage's redirected one are both text/csv (charset aside).
    const type = res.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (type !== 'text/csv') {
      await res.body?.cancel().catch(() => undefined);
      throw new NetintelError(
        0,
        'invalid_response',
        `The results answer (HTTP ${res.status}) is ${type ? type : 'without a Content-Type'}, not text/csv`,
        { requestId: res.headers.get('x-request-id') ?? undefined },
      );
    }
    return res.body
      ? timedDownload(res.body, new URL(res.url || transport.options.baseUrl).origin, idleMs, options.signal)
      : new Blob([]).stream();
  }

  /** The results file's rows as objects keyed by its header, read as they arrive. */
  async *results(id: string, options: CallOptions = {}): AsyncGenerator<Record<string, string>> {
    yield* csvObjects(await this.resultsFile(id, options));
  }

  /** One page of the account's jobs, newest first; pass `nextCursor` back for the next. */
  async list(options: CallOptions & { limit?: number; cursor?: string } = {}): Promise<JobPage> {
    const { limit, cursor, ...call } = options;
    return this.transport().json<JobPage>({
      ...call,
      method: 'GET',
      path: '/v1/email/jobs',
      query: { limit, cursor },
    });
  }
}
