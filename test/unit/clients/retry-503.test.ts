import { describe, expect, jest, test } from '@jest/globals';
import { Netintel } from '@netintel/client';

// The client retries a 503 that says a dependency did not answer in time, after its Retry-After,
// only where repeating the call cannot charge twice. The clock is Jest's: nothing is waited for.

const BASE_URL = 'https://api.netintel.invalid';

const unavailable = () =>
  new Response(
    JSON.stringify({ error: 'service_unavailable', message: 'DynamoDB did not answer in time.' }),
    {
      status: 503,
      headers: { 'Content-Type': 'application/json', 'Retry-After': '5' },
    },
  );

/** A fetch answering `answers` in turn, counting the calls. */
function scripted(answers: (() => Response)[]) {
  const calls: string[] = [];
  const fetch: typeof globalThis.fetch = async (url, init) => {
    calls.push(`${init?.method ?? 'GET'} ${String(url)}`);
    return answers[Math.min(calls.length - 1, answers.length - 1)]!();
  };
  return { calls, fetch };
}

describe('a 503 service_unavailable', () => {
  test('a GET is tried again after Retry-After', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    try {
      const ok = () => new Response(JSON.stringify({ thisMonth: { used: 1 } }), { status: 200 });
      const { calls, fetch } = scripted([unavailable, ok]);
      const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch });
      const usage = client.usage();
      await jest.advanceTimersByTimeAsync(4_999);
      expect(calls).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      await expect(usage).resolves.toMatchObject({ thisMonth: { used: 1 } });
      expect(calls).toHaveLength(2);
    } finally {
      jest.useRealTimers();
    }
  });

  test('a billed POST without an Idempotency-Key is not: its error is the 503, with Retry-After', async () => {
    const { calls, fetch } = scripted([unavailable]);
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch });
    await expect(client.lookupMany(['192.0.2.1'])).rejects.toMatchObject({
      status: 503,
      code: 'service_unavailable',
      retryAfterSeconds: 5,
    });
    expect(calls).toHaveLength(1);
  });
});
