import { errorFromResponse, NetintelError } from './errors.js';

// One API call: the key, a timeout and the caller's AbortSignal, and the retries that cannot
// charge twice. A 429 was refused before any work, so it is retried after its Retry-After whatever
// the method (when that wait is short enough). A call without an answer, or answered 503 because a
// service it depends on did not answer in time (its charge is returned, unless the counter itself
// did not answer), is retried only when repeating it is harmless: GET, DELETE, and a POST carrying
// an Idempotency-Key; the 503 after its Retry-After, the silence with backoff.

/** The 503s that say a dependency did not answer in time: worth another try after Retry-After. */
const RETRIED_503: ReadonlySet<string> = new Set(['service_unavailable', 'job_storage_unavailable']);

export interface TransportOptions {
  baseUrl: string;
  /** `Authorization: Bearer` for a secret key, `X-Api-Key` for a publishable one. */
  auth: { kind: 'secret' | 'publishable'; key: string };
  /** Per attempt, in milliseconds (default 30,000). */
  timeoutMs: number;
  /** Retries of a 429, or of an idempotent call without an answer or answered 503 (default 2; 0 turns them off). */
  maxRetries: number;
  /** A 429 whose Retry-After is longer than this many seconds is not waited for (default 60). */
  maxRetryAfterSeconds: number;
  fetch: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

export interface Request extends CallOptions {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  /** A JSON body, or raw bytes with their own headers. */
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** A POST that may be repeated (it carries an Idempotency-Key). */
  idempotent?: boolean;
  /**
   * The body is read by the caller as it arrives (a results file): the timeout covers the answer's
   * headers only, and the caller times the reads (jobs.resultsFile). Otherwise the whole body is
   * read under the timeout.
   */
  stream?: boolean;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** setTimeout's longest delay (about 24.8 days); Infinity means no timeout. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** `value` as a timeout in ms: a number from 1 to MAX_TIMEOUT_MS, or Infinity (none); a RangeError otherwise. */
export function checkedTimeout(value: number, what = 'timeoutMs'): number {
  if (
    value === Number.POSITIVE_INFINITY ||
    (typeof value === 'number' && value >= 1 && value <= MAX_TIMEOUT_MS)
  ) {
    return value;
  }
  throw new RangeError(
    `${what} must be from 1 to ${MAX_TIMEOUT_MS} ms, or Infinity for none (got ${String(value)})`,
  );
}

/**
 * A signal for one attempt: it aborts when the caller's `signal` does (with its reason) or after
 * `timeoutMs` (`timedOut()` then says so). `done()` releases the timer and the listener.
 */
export function attemptSignal(
  timeoutMs: number,
  signal?: AbortSignal,
): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
  const controller = new AbortController();
  const timer =
    timeoutMs === Number.POSITIVE_INFINITY
      ? undefined
      : setTimeout(() => controller.abort(new NetintelTimeout(timeoutMs)), timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => controller.signal.reason instanceof NetintelTimeout,
    done: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** Backoff before retry `attempt` (0-based) of a call without an answer: 0.25 s, 0.5 s, 1 s... with jitter. */
function backoffMs(attempt: number): number {
  return Math.min(8_000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2);
}

/** The transport's options as it shows them: the key itself is in a private field, never here. */
export type TransportSettings = Omit<TransportOptions, 'auth'> & { auth: { kind: 'secret' | 'publishable' } };

/**
 * Whether a failed fetch or body read had an answer that is not HTTP the client can read: a reply
 * that is not HTTP, a redirect loop, a body that is not in its Content-Encoding. The server (or
 * something in between) answered: `invalid_response`, not retried, rather than `network_error`.
 */
export function malformedAnswer(cause: unknown): string | undefined {
  // Not `instanceof Error`: fetch's errors may come from another realm (a VM context, a worker).
  let error = cause as
    | { name?: unknown; code?: unknown; message?: unknown; cause?: unknown }
    | null
    | undefined;
  for (let depth = 0; typeof error === 'object' && error !== null && depth < 6; depth++) {
    const { name, code, message } = error;
    // Node 20 and 22's fetch give the parser's code (HPE_*); Node 24's gives its HTTPParserError no code.
    if ((typeof code === 'string' && code.startsWith('HPE_')) || name === 'HTTPParserError')
      return 'the reply is not HTTP';
    if (code === 'Z_DATA_ERROR') return 'the body is not in its Content-Encoding';
    if (typeof message === 'string' && /redirect count exceeded/i.test(message))
      return 'it redirects in a loop';
    error = error.cause as typeof error;
  }
  return undefined;
}

export class Transport {
  /** The key is a private field: JSON.stringify and util.inspect of the client do not show it. */
  readonly #key: string;
  readonly options: TransportSettings;

  constructor(options: TransportOptions) {
    const { auth, ...rest } = options;
    this.#key = auth.key;
    this.options = { ...rest, auth: { kind: auth.kind } };
  }

  url(path: string, query: Request['query'] = {}): string {
    const url = new URL(path.replace(/^\//, ''), this.options.baseUrl.replace(/\/?$/, '/'));
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  /** The call's answer when it is a success (2xx or 3xx followed); a NetintelError otherwise. */
  async send(request: Request): Promise<Response> {
    const key = this.#key;
    const headers: Record<string, string> = {
      ...(this.options.auth.kind === 'secret' ? { Authorization: `Bearer ${key}` } : { 'X-Api-Key': key }),
      ...(request.json === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...request.headers,
    };
    const body = request.json === undefined ? request.body : JSON.stringify(request.json);
    const repeatable = request.method !== 'POST' || request.idempotent === true;
    const url = this.url(request.path, request.query);
    for (let attempt = 0; ; attempt++) {
      const res = await this.attempt(url, { method: request.method, headers, body }, request, {
        retryNoAnswer: repeatable && attempt < this.options.maxRetries,
        tries: attempt + 1,
      });
      if (res === 'retry') {
        await sleep(backoffMs(attempt), request.signal);
        continue;
      }
      if (res.ok) return res;
      const error = await errorFromResponse(res);
      const wait = error.retryAfterSeconds ?? 1;
      const refusedBeforeWork = res.status === 429 && error.code !== 'monthly_limit_exceeded';
      const dependencyDown = res.status === 503 && repeatable && RETRIED_503.has(error.code);
      if (
        (refusedBeforeWork || dependencyDown) &&
        attempt < this.options.maxRetries &&
        wait <= this.options.maxRetryAfterSeconds
      ) {
        await sleep(wait * 1000, request.signal);
        continue;
      }
      throw error;
    }
  }

  /** One fetch under the call's timeout and signal; 'retry' when it had no answer and may be repeated. */
  private async attempt(
    url: string,
    init: RequestInit,
    request: Request,
    { retryNoAnswer, tries }: { retryNoAnswer: boolean; tries: number },
  ): Promise<Response | 'retry'> {
    if (request.signal?.aborted) throw request.signal.reason;
    const timeoutMs = checkedTimeout(request.timeoutMs ?? this.options.timeoutMs);
    const attempt = attemptSignal(timeoutMs, request.signal);
    try {
      const res = await this.options.fetch(url, { ...init, signal: attempt.signal });
      if (res.status < 200 || res.status > 599) {
        // Not a status HTTP has (600, 999): an answer, but not the API's.
        await res.body?.cancel().catch(() => undefined);
        throw new NetintelError(
          0,
          'invalid_response',
          `The answer's HTTP status ${res.status} is not one HTTP has`,
          {
            requestId: res.headers.get('x-request-id') ?? undefined,
          },
        );
      }
      if (request.stream && res.ok) return res;
      const bytes = NULL_BODY_STATUSES.has(res.status) ? null : await bodyWithin(res, MAX_ANSWER_BYTES);
      return new Response(bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (cause) {
      if (request.signal?.aborted) throw request.signal.reason;
      if (cause instanceof NetintelError) throw cause; // an answer too large: no retry
      const malformed = malformedAnswer(cause);
      if (malformed) {
        throw new NetintelError(
          0,
          'invalid_response',
          `The answer from ${new URL(url).origin} is not one the client can read: ${malformed}`,
          { cause },
        );
      }
      if (retryNoAnswer) return 'retry';
      if (attempt.timedOut()) {
        throw timeoutError(url, timeoutMs, cause, tries);
      }
      throw new NetintelError(0, 'network_error', `Cannot reach the API at ${new URL(url).origin}`, {
        cause,
      });
    } finally {
      attempt.done();
    }
  }

  /** The answer's JSON object; `invalid_response` (status 0: the HTTP status was a success) otherwise. */
  async json<T>(request: Request): Promise<T> {
    return this.jsonOf<T>(await this.send(request));
  }

  /** The JSON object of a success answer (see json()), for a caller that also reads its headers. */
  async jsonOf<T>(res: Response): Promise<T> {
    const requestId = res.headers.get('x-request-id') ?? undefined;
    let body: unknown;
    try {
      body = await res.json();
    } catch (cause) {
      throw new NetintelError(0, 'invalid_response', `The answer (HTTP ${res.status}) is not JSON`, {
        cause,
        requestId,
      });
    }
    // Every answer of the API is an object.
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new NetintelError(0, 'invalid_response', `The answer (HTTP ${res.status}) is not a JSON object`, {
        requestId,
      });
    }
    return body as T;
  }

  /**
   * The `results` of a batch answer: one per item sent, in order; `invalid_response` otherwise
   * (a proxy's or another service's JSON, which would lose or shift rows).
   */
  async results<R>(request: Request, sent: number): Promise<R[]> {
    const { results } = await this.json<{ results?: unknown }>(request);
    if (!Array.isArray(results) || results.length !== sent) {
      throw new NetintelError(
        0,
        'invalid_response',
        `The answer has ${Array.isArray(results) ? results.length : 'no'} results for the ${sent} items sent`,
      );
    }
    return results as R[];
  }
}

/** The client's `timeout` error for a call to `url` (the API, or an upload URL). */
export function timeoutError(url: string, timeoutMs: number, cause: unknown, tries = 1): NetintelError {
  return new NetintelError(
    0,
    'timeout',
    `No answer from ${new URL(url).origin} within ${timeoutMs} ms${tries > 1 ? ` (${tries} tries)` : ''}`,
    { cause },
  );
}

/**
 * The most an answer read whole may hold (the API's largest, a batch of 100 lookups with every
 * field, is far below): a server that sends more is not the API, and is not read into memory.
 */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** The body's bytes, read as they arrive; `invalid_response` as soon as there are more than `limit`. */
async function bodyWithin(res: Response, limit: number): Promise<ArrayBuffer> {
  const tooLarge = () =>
    new NetintelError(0, 'invalid_response', `The answer (HTTP ${res.status}) is over ${limit} bytes`, {
      requestId: res.headers.get('x-request-id') ?? undefined,
    });
  if (Number(res.headers.get('content-length')) > limit) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (!res.body) return new ArrayBuffer(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new Blob(chunks as BlobPart[]).arrayBuffer();
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** The reason a call's own timer aborts it with (as opposed to the caller's signal). */
class NetintelTimeout extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
  }
}
