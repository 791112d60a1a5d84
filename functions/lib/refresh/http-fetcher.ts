import { type FetchedText, type FetchTarget, type SourceFetcher, SourceUnavailableError } from './fetch.js';

// Fetches sources from their upstream URLs with the runtime's fetch (Node 20+). A non-2xx status,
// a timeout or a body over the size cap is SourceUnavailableError; what the body contains is judged
// by the parsers, not here.

export interface HttpFetcherOptions {
  /** Per-request timeout. Default 60 s. */
  timeoutMs?: number;
  /** Largest body accepted. Default 64 MiB (the largest source, AWS ip-ranges.json, is ~2 MB). */
  maxBytes?: number;
  userAgent?: string;
  now?: () => Date;
  fetchImpl?: typeof fetch;
}

export function httpFetcher(options: HttpFetcherOptions = {}): SourceFetcher {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxBytes = options.maxBytes ?? 64 * 2 ** 20;
  const now = options.now ?? (() => new Date());
  const fetchImpl = options.fetchImpl ?? fetch;
  const userAgent = options.userAgent ?? 'netintel-data-refresh/1';
  return {
    mode: 'upstream',
    async fetch(target: FetchTarget): Promise<FetchedText> {
      let response: Response;
      try {
        response = await fetchImpl(target.url, {
          headers: { 'user-agent': userAgent, accept: 'text/plain, application/json, */*' },
          redirect: 'follow',
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new SourceUnavailableError(`${target.url}: ${(error as Error).message}`);
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new SourceUnavailableError(`${target.url}: HTTP ${response.status}`);
      }
      const declared = Number(response.headers.get('content-length') ?? 0);
      if (declared > maxBytes) {
        await response.body?.cancel();
        throw new SourceUnavailableError(`${target.url}: ${declared} bytes is over the ${maxBytes}-byte cap`);
      }
      const body = new Uint8Array(await response.arrayBuffer());
      if (body.byteLength > maxBytes) {
        throw new SourceUnavailableError(`${target.url}: body over the ${maxBytes}-byte cap`);
      }
      return { text: new TextDecoder().decode(body), fetchedAt: now(), origin: target.url };
    },
  };
}
