import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { ATTEMPT_TIMEOUT_MS, RESPONSE_EXCERPT_BYTES } from './delivery.js';
import {
  type DestinationPolicy,
  DestinationRefusedError,
  guardedLookup,
  type Resolve,
} from './destination.js';
import type { Post, PostResult } from './ports.js';

// The POST of a delivery. A receiver cannot hold a worker or fill its memory: the whole attempt
// (resolving, connecting, sending, the answer's head and its first RESPONSE_EXCERPT_BYTES) is bounded
// by ATTEMPT_TIMEOUT_MS, the rest of the answer is never read, redirects are not followed (a 3xx is
// a failed attempt), and the connection is made through guardedLookup, so a name resolving to a
// private, loopback or metadata address is refused before any socket exists. Literal addresses never
// reach a lookup: delivery.ts refuses those with parseDestination before calling this.

export interface PostOptions {
  policy: DestinationPolicy;
  /** How names are resolved (webhooks/resolve.ts; tests pass a stub). */
  resolve: Resolve;
  timeoutMs?: number;
  /** Last check of every address a connection is about to use, after the guard (tests: loopback only). */
  connectGuard?: (address: string) => void;
}

/** A lookup that also passes each address it answers through `check` (which throws to refuse it). */
function checkedLookup(lookup: ReturnType<typeof guardedLookup>, check: (address: string) => void) {
  return (...[hostname, options, callback]: Parameters<ReturnType<typeof guardedLookup>>): void =>
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      try {
        for (const a of Array.isArray(address) ? address : [{ address, family }]) check(String(a.address));
      } catch (refused) {
        return callback(new DestinationRefusedError((refused as Error).message), []);
      }
      callback(null, address, family);
    });
}

export function httpPost(options: PostOptions): Post {
  const guarded = guardedLookup(options.resolve, options.policy);
  const check = options.connectGuard;
  const lookup = check ? checkedLookup(guarded, check) : guarded;
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  return (url, body, headers) =>
    new Promise<PostResult>((resolve) => {
      const started = performance.now();
      const elapsed = () => performance.now() - started;
      let settled = false;
      const finish = (result: Omit<PostResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        resolve({ ...result, latencyMs: elapsed() });
      };
      // A literal address is connected to without a lookup: it gets the last check here.
      const bare = url.hostname.replace(/^\[|\]$/g, '');
      if (check && isIP(bare)) {
        try {
          check(bare);
        } catch (refused) {
          resolve({
            status: null,
            latencyMs: 0,
            response: `refused: ${(refused as Error).message}`,
            refused: true,
          });
          return;
        }
      }
      const client = url.protocol === 'https:' ? https : http;
      const request = client.request(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        lookup: lookup as never,
        agent: false,
      });
      const timer = setTimeout(
        () => finish({ status: null, response: `no answer within ${timeoutMs / 1000} s` }),
        timeoutMs,
      );
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          finish({
            status: response.statusCode ?? null,
            response: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8'),
          });
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_EXCERPT_BYTES) done();
        });
        response.on('end', done);
        response.on('error', done);
      });
      request.on('error', (error) =>
        finish({
          status: null,
          response:
            error instanceof DestinationRefusedError
              ? `refused: ${error.message}`
              : `connection failed: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
          refused: error instanceof DestinationRefusedError,
        }),
      );
      request.end(body);
    });
}
