import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { Netintel } from '@netintel/client';

// The client's timeout against a server that never answers. Its own file: Jest's fake clock is
// global to the process, and a local stack sharing the process would have its pollers' timers
// captured by it (one CI run hung there for 30 s).

/** A fetch that never answers and fails only when aborted, as a silent server does. */
const silent: typeof fetch = (_url, init) =>
  new Promise((_resolve, reject) =>
    init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
  );

const BASE_URL = 'https://api.netintel.invalid';

describe('a server that never answers', () => {
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  test("is a timeout after the client's 30 s, not retried when the call is a billed POST", async () => {
    let attempts = 0;
    const counted: typeof fetch = (url, init) => {
      attempts++;
      return silent(url, init);
    };
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: counted });
    const timedOut = expect(client.lookupMany(['192.0.2.1'])).rejects.toMatchObject({
      status: 0,
      code: 'timeout',
    });
    await jest.advanceTimersByTimeAsync(29_999);
    expect(attempts).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    await timedOut;
    expect(attempts).toBe(1);
  });

  test('a GET is tried three times (with backoff) before the timeout, which says so', async () => {
    let attempts = 0;
    const counted: typeof fetch = (url, init) => {
      attempts++;
      return silent(url, init);
    };
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: counted });
    const timedOut = expect(client.usage()).rejects.toMatchObject({
      status: 0,
      code: 'timeout',
      message: `No answer from ${BASE_URL} within 30000 ms (3 tries)`,
    });
    await jest.advanceTimersByTimeAsync(3 * 30_000 + 2_000);
    await timedOut;
    expect(attempts).toBe(3);
  });

  test("a per-call timeoutMs overrides the client's", async () => {
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: silent, maxRetries: 0 });
    const timedOut = expect(client.usage({ timeoutMs: 500 })).rejects.toMatchObject({ code: 'timeout' });
    await jest.advanceTimersByTimeAsync(500);
    await timedOut;
  });

  test("a cancelled call rejects with its signal's reason at once", async () => {
    const controller = new AbortController();
    const call = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: silent }).usage({
      signal: controller.signal,
    });
    controller.abort(new Error('the user left'));
    await expect(call).rejects.toThrow('the user left');
  });

  test('timeoutMs: Infinity is no timeout; a value setTimeout cannot hold is refused before any request', async () => {
    let attempts = 0;
    const counted: typeof fetch = (url, init) => {
      attempts++;
      return silent(url, init);
    };
    const controller = new AbortController();
    const client = new Netintel({
      baseUrl: BASE_URL,
      secretKey: 'sk_x',
      fetch: counted,
      maxRetries: 0,
      timeoutMs: Number.POSITIVE_INFINITY,
    });
    const call = client.usage({ signal: controller.signal });
    const settled = jest.fn();
    call.then(settled, settled);
    await jest.advanceTimersByTimeAsync(40 * 24 * 3600 * 1000);
    expect(settled).not.toHaveBeenCalled();
    controller.abort(new Error('enough'));
    await expect(call).rejects.toThrow('enough');

    for (const timeoutMs of [2 ** 31, 0, -1, Number.NaN]) {
      expect(() => new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: counted, timeoutMs })).toThrow(
        RangeError,
      );
      await expect(client.usage({ timeoutMs })).rejects.toThrow(/timeoutMs must be from 1 to 2147483647 ms/);
    }
    expect(attempts).toBe(1);
  });

  test('a results download with no byte for timeoutMs after its first is a timeout, each byte restarting the wait', async () => {
    let send: (text: string) => void = () => undefined;
    const stalling: typeof fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('email,verdict\n'));
            send = (text) => controller.enqueue(new TextEncoder().encode(text));
          },
        }),
        { status: 200, headers: { 'Content-Type': 'text/csv; charset=utf-8' } },
      );
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: stalling });
    const rows: Record<string, string>[] = [];
    const read = (async () => {
      for await (const row of client.jobs.results('job_1')) rows.push(row);
    })();
    const settled = jest.fn();
    read.then(settled, settled);
    await jest.advanceTimersByTimeAsync(29_999);
    expect(settled).not.toHaveBeenCalled();
    send('a@example.com,accept\n');
    await jest.advanceTimersByTimeAsync(29_999);
    expect(settled).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    await expect(read).rejects.toMatchObject({
      status: 0,
      code: 'timeout',
      message: `The results download from ${BASE_URL} stalled: no byte within 30000 ms after 35 bytes`,
    });
    expect(rows).toEqual([{ email: 'a@example.com', verdict: 'accept' }]);
  });

  test("a results download cancelled through its signal mid-file rejects with the signal's reason", async () => {
    const stalling: typeof fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('email,verdict\na@example.com,accept\n'));
          },
        }),
        { status: 200, headers: { 'Content-Type': 'text/csv' } },
      );
    const controller = new AbortController();
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: stalling });
    const rows: Record<string, string>[] = [];
    const read = (async () => {
      for await (const row of client.jobs.results('job_1', { signal: controller.signal })) {
        rows.push(row);
        controller.abort(new Error('the user left'));
      }
    })();
    await expect(read).rejects.toThrow('the user left');
    expect(rows).toEqual([{ email: 'a@example.com', verdict: 'accept' }]);
  });

  test('an upload URL that never answers is a timeout after timeoutMs', async () => {
    const uploadUrl = 'https://uploads.netintel.invalid/bucket';
    const requests: string[] = [];
    let uploading: () => void = () => undefined;
    const uploadStarted = new Promise<void>((resolve) => {
      uploading = resolve;
    });
    const fetch: typeof globalThis.fetch = async (url, init) => {
      requests.push(String(url));
      if (String(url) === uploadUrl) {
        uploading();
        return silent(url, init);
      }
      return Response.json({ uploadId: 'up_1', uploadUrl, fields: { key: 'k' }, expiresAt: '' });
    };
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch, timeoutMs: 1_000 });
    // Random bytes do not compress: over the 4 MB a request may carry, so they go to the upload URL.
    const bytes = new Uint8Array(4 * 1024 * 1024 + 1024);
    for (let i = 0; i < bytes.length; i += 65_536) crypto.getRandomValues(bytes.subarray(i, i + 65_536));
    const created = expect(client.jobs.create(bytes)).rejects.toMatchObject({
      status: 0,
      code: 'timeout',
      message: 'No answer from https://uploads.netintel.invalid within 1000 ms',
    });
    // Compressing runs on zlib's threads, outside the fake clock: the clock moves once the upload is sent.
    await uploadStarted;
    await jest.advanceTimersByTimeAsync(999);
    expect(requests).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    await created;
    expect(requests).toEqual([`${BASE_URL}/v1/email/jobs/uploads`, uploadUrl]);
  });
});
