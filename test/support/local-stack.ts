import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../scripts/local/stack.js';

// Integration tests run the real local stack (emulators, API Gateway emulator, pollers) on a
// random port with its own data directory, and talk to it over HTTP.

export interface TestStack extends LocalStack {
  call(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: unknown },
  ): Promise<Response>;
  secret(): Record<string, string>;
  browser(origin?: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startTestStack(options: LocalStackOptions = {}): Promise<TestStack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-test-'));
  process.env.KEY_CACHE_SECONDS = '1';
  const stack = await startLocalStack({ dataDir, retryDelaySeconds: 1, ...options });
  return {
    ...stack,
    call(method, path, init = {}) {
      const body =
        init.body === undefined
          ? undefined
          : typeof init.body === 'string' || init.body instanceof Buffer
            ? init.body
            : JSON.stringify(init.body);
      const headers = {
        ...(init.body !== undefined && typeof init.body !== 'string' && !(init.body instanceof Buffer)
          ? { 'Content-Type': 'application/json' }
          : {}),
        ...init.headers,
      };
      return fetch(stack.url + path, { method, headers, body: body as never });
    },
    secret: () => ({ Authorization: `Bearer ${stack.dev.secretKey}` }),
    browser: (origin = 'http://localhost:5173') => ({
      'X-Api-Key': stack.dev.publishableKey,
      Origin: origin,
    }),
    async close() {
      await stack.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until at least `seconds` remain in the current UTC minute, so a test stays in one window. */
export async function awaitFreshMinute(seconds = 20): Promise<void> {
  const left = 60 - (Date.now() % 60_000) / 1000;
  if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 50));
}
