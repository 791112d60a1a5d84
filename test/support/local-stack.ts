import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../functions/lib/clock.js';
import { accessLogger } from '../../functions/lib/observability.js';
import type { GatewayLogger } from '../../scripts/local/api-gateway.js';
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
  /**
   * What the gateway logged as an error so far (5xx answers, an authorizer or handler that threw),
   * one line each with the error's name and message: kept whatever the log level, so a test that
   * meets an unexpected 5xx can say what it was.
   */
  serverErrors(): string[];
  /** The messages of the gateway's other log lines (access lines, ...), the last 100. */
  serverLines(): string[];
  close(): Promise<void>;
}

/**
 * The gateway's logger for a test stack: Powertools' as usual, its errors kept (the last 100) and
 * the messages of its other lines (the last 100).
 */
function recordingLogger(kept: string[], lines: string[]): GatewayLogger {
  const info = accessLogger.info.bind(accessLogger) as (...args: unknown[]) => void;
  const error = accessLogger.error.bind(accessLogger) as (...args: unknown[]) => void;
  return {
    info: (...args: unknown[]) => {
      lines.push(String(args[0]));
      if (lines.length > 100) lines.shift();
      info(...args);
    },
    error: (...args: unknown[]) => {
      const [message, ...extra] = args;
      const details = extra
        .map((e) => {
          const { error, ...fields } = (e ?? {}) as { error?: { name?: string; message?: string } };
          const cause = error ? ` ${error.name ?? 'Error'}: ${error.message ?? ''}` : '';
          return `${JSON.stringify(fields)}${cause}`;
        })
        .join(' ');
      kept.push(`${String(message)} ${details}`.trim());
      if (kept.length > 100) kept.shift();
      error(...args);
    },
  };
}

/**
 * The service clock of the test stack: real time plus an offset that only tests move, so expiry
 * (key caches, minute windows, job retention) is tested by moving time, never by sleeping.
 */
export class TestClock implements Clock {
  private offsetMs = 0;
  /** Set while frozen: the time now() answers however long a request takes to reach its handler. */
  private frozenAtMs: number | undefined;

  now(): Date {
    return new Date(this.frozenAtMs ?? Date.now() + this.offsetMs);
  }

  advance(ms: number): Date {
    if (this.frozenAtMs !== undefined) this.frozenAtMs += ms;
    else this.offsetMs += ms;
    return this.now();
  }

  /** Puts the clock at `at` (it runs on from there). */
  set(at: Date): void {
    this.frozenAtMs = undefined;
    this.offsetMs = at.getTime() - Date.now();
  }

  /** Stops the clock at `at` until thaw(): an answer that shows elapsed time does not depend on load. */
  freeze(at: Date): void {
    this.frozenAtMs = at.getTime();
  }

  /** Lets a frozen clock run on from where it stopped. */
  thaw(): void {
    if (this.frozenAtMs === undefined) return;
    this.offsetMs = this.frozenAtMs - Date.now();
    this.frozenAtMs = undefined;
  }
}

/** The clock every test stack of this test file runs on. */
export const clock = new TestClock();

/** KEY_CACHE_SECONDS of the test stacks. */
const KEY_CACHE_SECONDS = 1;

/** Moves the clock past the key, account and hostname caches (KEY_CACHE_SECONDS). */
export function afterKeyCache(): Date {
  return clock.advance(KEY_CACHE_SECONDS * 1000 + 1);
}

export async function startTestStack(options: LocalStackOptions = {}): Promise<TestStack> {
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-test-'));
  process.env.KEY_CACHE_SECONDS = String(KEY_CACHE_SECONDS);
  // Webhook connections to anything but loopback fail, whatever the code under test decides.
  process.env.NETINTEL_LOOPBACK_ONLY = 'true';
  // Calls may run for 2 minutes, not their Lambda's 10-29 s, and an AWS call for a minute, not its
  // 1-2 s (functions/lib/aws/call-bounds.ts): on a busy 2-core machine a race of 200 calls must not
  // turn into 504s or 503s (what these stacks test is the answers, not latency). The tests of hung
  // dependencies set short bounds of their own.
  const errors: string[] = [];
  const lines: string[] = [];
  const stack = await startLocalStack({
    dataDir,
    gatewayLogger: recordingLogger(errors, lines),
    retryDelaySeconds: 0,
    integrationTimeoutMs: 120_000,
    functionTimeoutMs: 120_000,
    clock,
    awsTimeouts: { connectMs: 10_000, requestMs: 60_000 },
    // A stack of its own folder, never restarted on it: its tables need not outlive it.
    tablesInMemory: true,
    ...options,
  });
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
    serverErrors: () => [...errors],
    serverLines: () => [...lines],
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
 * Moves the service clock to just after the start of a minute that no earlier call used, so a
 * rate-limit test has a whole fresh window however slow the machine is. Returns that time.
 */
export function freshMinute(): Date {
  const target = (Math.floor(clock.now().getTime() / 60_000) + 1) * 60_000 + 200;
  clock.set(new Date(target));
  return new Date(target);
}

export function serviceNow(): Date {
  return clock.now();
}
