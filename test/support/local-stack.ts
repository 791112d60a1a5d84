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

/**
 * Moves the service clock (NETINTEL_CLOCK_OFFSET_MS, read by now() in the handlers of this
 * process) to just after the start of a minute that no earlier call used, so a rate-limit test has
 * a whole fresh window however slow the machine is. Returns the service's current time.
 */
export function freshMinute(): Date {
  const previous = Number(process.env.NETINTEL_CLOCK_OFFSET_MS ?? 0);
  const target = (Math.floor((Date.now() + previous) / 60_000) + 1) * 60_000 + 200;
  process.env.NETINTEL_CLOCK_OFFSET_MS = String(target - Date.now());
  return new Date(target);
}

export function serviceNow(): Date {
  return new Date(Date.now() + Number(process.env.NETINTEL_CLOCK_OFFSET_MS ?? 0));
}
