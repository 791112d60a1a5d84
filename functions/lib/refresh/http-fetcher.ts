import {
  type FetchedBytes,
  type FetchedText,
  type FetchTarget,
  type SourceFetcher,
  SourceUnavailableError,
} from './fetch.js';

// Fetches sources from their upstream URLs with the runtime's fetch (Node 20+). A non-2xx status,
// a timeout or a body over the size cap is SourceUnavailableError; what the body contains is judged
// by the parsers, not here.

export interface HttpFetcherOptions {
  /** Per-request timeout, body included. Default 60 s. */
  timeoutMs?: number;
  /**
   * Largest body accepted, text or bytes. Default 64 MiB (the largest text source, AWS
   * ip-ranges.json, is ~2 MB; the largest archive, GeoNames' allCountries.zip, ~16 MB).
   */
  maxBytes?: number;
  userAgent?: string;
  now?: () => Date;
  fetchImpl?: typeof fetch;
  /**
   * Base URL of a mirror of the upstreams (an air-gapped deployment, a test server): when set,
   * `https://host/path?query` is fetched from `${mirror}/host/path?query` instead.
   */
  mirror?: string;
}

/** The URL a target is fetched from: its own, or its path under the mirror. */
export function mirroredUrl(url: string, mirror: string | undefined): string {
  if (mirror === undefined) return url;
  const u = new URL(url);
  return `${mirror.replace(/\/+$/, '')}/${u.host}${u.pathname}${u.search}`;
}

export function httpFetcher(options: HttpFetcherOptions = {}): SourceFetcher {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxBytes = options.maxBytes ?? 64 * 2 ** 20;
  const now = options.now ?? (() => new Date());
  const fetchImpl = options.fetchImpl ?? fetch;
  const userAgent = options.userAgent ?? 'netintel-data-refresh/1';

  async function get(target: FetchTarget, accept: string): Promise<{ body: Uint8Array; origin: string }> {
    const url = mirroredUrl(target.url, options.mirror);
    let response: Response | undefined;
    // A GET whose connection was reset before any answer is sent once more: a kept-alive
    // connection the server closed while idle is the usual cause, not the upstream being down.
    for (let attempt = 1; response === undefined; attempt++) {
      try {
        response = await fetchImpl(url, {
          headers: { 'user-agent': userAgent, accept },
          redirect: 'follow',
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        if (attempt === 1 && CLOSED_BEFORE_ANSWER.has(causeCode(error) ?? '')) continue;
        throw new SourceUnavailableError(`${url}: ${failure(error)}`);
      }
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new SourceUnavailableError(`${url}: HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw new SourceUnavailableError(`${url}: ${declared} bytes is over the ${maxBytes}-byte cap`);
    }
    return { body: await readCapped(response, maxBytes, url), origin: url };
  }

  return {
    mode: 'upstream',
    async fetch(target: FetchTarget): Promise<FetchedText> {
      const { body, origin } = await get(target, 'text/plain, application/json, */*');
      return { text: new TextDecoder().decode(body), fetchedAt: now(), origin };
    },
    async fetchBytes(target: FetchTarget): Promise<FetchedBytes> {
      const { body, origin } = await get(target, 'application/zip, application/octet-stream, */*');
      return { bytes: body, fetchedAt: now(), origin };
    },
  };
}

/** The body, read chunk by chunk and abandoned as soon as it passes the cap (a missing or false
 * content-length does not make the whole body land in memory first). */
async function readCapped(response: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw new SourceUnavailableError(`${url}: body over the ${maxBytes}-byte cap`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof SourceUnavailableError) throw error;
    throw new SourceUnavailableError(`${url}: ${failure(error)}`);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/**
 * How fetch reports a connection the server closed before answering: reset by the peer, or closed
 * by it (undici's "other side closed").
 */
const CLOSED_BEFORE_ANSWER = new Set(['ECONNRESET', 'UND_ERR_SOCKET']);

function causeCode(error: unknown): string | undefined {
  return (error as { cause?: { code?: string } }).cause?.code;
}

/** fetch's error with its cause ("fetch failed: ECONNREFUSED"), which says what went wrong. */
function failure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.code ?? cause?.message;
  return detail ? `${(error as Error).message}: ${detail}` : (error as Error).message;
}
