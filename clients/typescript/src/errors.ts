/**
 * Every failure of a call: an error answer of the API (`status` and `code` are its HTTP status and
 * `error` field, e.g. 429 `rate_limit_exceeded`), or one the client found itself, with `status` 0:
 * `network_error` (no answer), `timeout` (no answer within `timeoutMs`), `wrong_key_type` (a
 * publishable key on a route that needs the secret key) and `invalid_response` (an answer that is
 * not the API's JSON). A call cancelled through its `signal` rejects with the signal's reason instead.
 */
export class NetintelError extends Error {
  override readonly name = 'NetintelError';

  constructor(
    /** The HTTP status, or 0 when there was no answer from the API. */
    readonly status: number,
    /** The API's `error` code, or the client's own (see the class comment). */
    readonly code: string,
    message: string,
    readonly details: {
      /** The API's X-Request-Id, to quote when asking about a call. */
      requestId?: string;
      /** Seconds the API asked to wait (Retry-After of a 429). */
      retryAfterSeconds?: number;
      /** Requests left of the month (monthly_limit_exceeded). */
      remaining?: number;
      /** The rows refused, by line number (invalid_geofeed). */
      lines?: { line: number; reason: string }[];
      /**
       * lookupMany() and checkEmails(): the index, in the array you passed, of the item the API
       * refused (its message names the same index, not the one within the batch of 100 it was sent in).
       */
      index?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  get requestId(): string | undefined {
    return this.details.requestId;
  }

  get retryAfterSeconds(): number | undefined {
    return this.details.retryAfterSeconds;
  }
}

/**
 * A batch's refusal of one item (`ips[3]: …`, `emails[3]: …`) with the item's index in the whole
 * list of which the batch starts at `start`; any other error as it is.
 */
export function inWholeList(error: unknown, field: string, start: number): unknown {
  if (!(error instanceof NetintelError)) return error;
  const match = new RegExp(`^${field}\\[(\\d+)\\]`).exec(error.message);
  if (!match) return error;
  const index = start + Number(match[1]);
  const { cause, ...details } = error.details;
  return new NetintelError(
    error.status,
    error.code,
    `${field}[${index}]${error.message.slice(match[0].length)}`,
    { ...details, index, ...(cause === undefined ? {} : { cause }) },
  );
}

/** Seconds from a Retry-After header: delta-seconds or an HTTP date; undefined when absent or bad. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The NetintelError for an error answer, from its `{error, message}` body when it has one. */
export async function errorFromResponse(res: Response): Promise<NetintelError> {
  const requestId = res.headers.get('x-request-id') ?? undefined;
  const retryAfter = retryAfterSeconds(res.headers.get('retry-after'));
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const code = typeof fields.error === 'string' ? fields.error : `http_${res.status}`;
  const message =
    typeof fields.message === 'string' ? fields.message : `The API answered ${res.status} ${res.statusText}`;
  return new NetintelError(res.status, code, message, {
    ...(requestId ? { requestId } : {}),
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
    ...(typeof fields.remaining === 'number' ? { remaining: fields.remaining } : {}),
    ...(Array.isArray(fields.lines) ? { lines: fields.lines as { line: number; reason: string }[] } : {}),
  });
}
