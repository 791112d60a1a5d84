import { gunzipSync } from 'node:zlib';
import { describe, expect, test } from '@jest/globals';
import { Netintel } from '@netintel/client';

// What the client makes of what it is given and of what it gets back, without a server: a fetch that
// records each request and answers what the test says.

const BASE_URL = 'https://api.netintel.invalid';

function recording(answer: () => Response) {
  const requests: { url: string; headers: Headers; body: Uint8Array }[] = [];
  const fetch: typeof globalThis.fetch = async (url, init) => {
    const body = init?.body ? new Uint8Array(await new Response(init.body).arrayBuffer()) : new Uint8Array();
    requests.push({ url: String(url), headers: new Headers(init?.headers), body });
    return answer();
  };
  return { requests, fetch };
}

const queued = () =>
  new Response(JSON.stringify({ jobId: 'job_1', status: 'queued' }), {
    status: 202,
    headers: { 'Content-Type': 'application/json' },
  });

describe('client inputs and answers', () => {
  test('jobs.create takes CSV text as it takes a file: sent as text/csv, compressed when smaller', async () => {
    const { requests, fetch } = recording(queued);
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch });
    const csv = `email\n${Array.from({ length: 50 }, (_, i) => `user${i}@example.com`).join('\n')}\n`;
    await expect(client.jobs.create(csv, { filename: 'list.csv' })).resolves.toMatchObject({
      jobId: 'job_1',
    });
    const [sent] = requests;
    expect(sent?.headers.get('content-type')).toBe('text/csv');
    expect(sent?.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(sent?.body ?? new Uint8Array()).toString('utf8')).toBe(csv);
    expect(new URL(sent?.url ?? '').searchParams.get('filename')).toBe('list.csv');
  });

  test('jobs.create given something that is no list says so before any request', async () => {
    const { requests, fetch } = recording(queued);
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch });
    const untyped = client.jobs.create as (input: unknown) => Promise<unknown>;
    await expect(untyped.call(client.jobs, 42)).rejects.toThrow(
      'jobs.create takes a CSV (text, a Blob or File, bytes) or an array of addresses, not number',
    );
    await expect(untyped.call(client.jobs, null)).rejects.toThrow(/not null$/);
    expect(requests).toHaveLength(0);
  });

  test("a 2xx answer that is not JSON is the client's own invalid_response: status 0, the HTTP status in the message", async () => {
    const { fetch } = recording(
      () => new Response('<html>proxy</html>', { status: 200, headers: { 'X-Request-Id': 'req-1' } }),
    );
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch });
    await expect(client.usage()).rejects.toMatchObject({
      status: 0,
      code: 'invalid_response',
      message: 'The answer (HTTP 200) is not JSON',
      requestId: 'req-1',
    });
  });
});
