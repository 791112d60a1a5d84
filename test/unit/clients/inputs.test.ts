import { inspect } from 'node:util';
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

  test('an answer of the wrong shape is invalid_response, never rows lost or shifted', async () => {
    const answering = (body: unknown) =>
      new Netintel({
        baseUrl: BASE_URL,
        secretKey: 'sk_x',
        fetch: recording(() => Response.json(body)).fetch,
      });
    const invalid = { status: 0, code: 'invalid_response' };
    await expect(answering({ results: [] }).lookupMany(['192.0.2.1', '192.0.2.2'])).rejects.toMatchObject({
      ...invalid,
      message: 'The answer has 0 results for the 2 items sent',
    });
    await expect(answering({ foo: 1 }).checkEmails(['a@example.com'])).rejects.toMatchObject({
      ...invalid,
      message: 'The answer has no results for the 1 items sent',
    });
    await expect(answering({ foo: 1 }).validateEmail('a@example.com')).rejects.toMatchObject(invalid);
    await expect(answering(null).validateEmail('a@example.com')).rejects.toMatchObject(invalid);
    await expect(answering([]).lookup('192.0.2.1')).rejects.toMatchObject({
      ...invalid,
      message: 'The answer (HTTP 200) is not a JSON object',
    });
  });

  test('a key given as the other kind, or a concurrency below 1, is refused by the constructor', () => {
    const { fetch } = recording(queued);
    expect(() => new Netintel({ baseUrl: BASE_URL, publishableKey: 'ni_sec_abc', fetch })).toThrow(
      /publishableKey is a secret key/,
    );
    expect(() => new Netintel({ baseUrl: BASE_URL, publishableKey: 'ni_test_sec_abc', fetch })).toThrow(
      /publishableKey is a secret key/,
    );
    expect(() => new Netintel({ baseUrl: BASE_URL, secretKey: 'ni_pub_abc', fetch })).toThrow(
      /secretKey is a publishable key/,
    );
    expect(() => new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch, concurrency: 0 })).toThrow(
      'concurrency must be a whole number from 1 (got 0)',
    );
  });

  test('a baseUrl that is not an http(s) address is refused by the constructor, naming it', () => {
    const { fetch } = recording(queued);
    // An unset variable, a host without its scheme (a URL of the scheme `localhost:`), another scheme, credentials.
    for (const baseUrl of [
      undefined,
      '',
      '127.0.0.1:8787',
      'localhost:8787',
      'ftp://127.0.0.1:8787',
      'https://user:pw@api.netintel.invalid',
    ]) {
      expect(() => new Netintel({ baseUrl: baseUrl as string, secretKey: 'sk_x', fetch })).toThrow(
        new TypeError(
          `baseUrl must be the API's http:// or https:// address without a user or password, e.g. https://api.example.com (got ${baseUrl === undefined ? 'undefined' : JSON.stringify(baseUrl)})`,
        ),
      );
    }
    for (const baseUrl of [
      'http://127.0.0.1:8787',
      'https://api.netintel.invalid/',
      'HTTPS://API.NETINTEL.INVALID',
    ]) {
      expect(() => new Netintel({ baseUrl, secretKey: 'sk_x', fetch })).not.toThrow();
    }
  });

  test('a results file cut off mid-way is a network_error, as every failure of a call', async () => {
    const encoder = new TextEncoder();
    const cut = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode('email,verdict\na@example.com,accept\n'));
          },
          pull(controller) {
            controller.error(new TypeError('terminated'));
          },
        }),
        { status: 200, headers: { 'Content-Type': 'text/csv' } },
      );
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: recording(cut).fetch });
    const rows: Record<string, string>[] = [];
    await expect(
      (async () => {
        for await (const row of client.jobs.results('job_1')) rows.push(row);
      })(),
    ).rejects.toMatchObject({
      name: 'NetintelError',
      status: 0,
      code: 'network_error',
      message: `The results download from ${BASE_URL} was cut off after 35 bytes`,
    });
    expect(rows).toEqual([{ email: 'a@example.com', verdict: 'accept' }]);
  });

  test('a results answer that is not text/csv is invalid_response, as lookup() says of it, never an empty success', async () => {
    const html = () =>
      new Response('<html>hi</html>', {
        status: 200,
        headers: { 'Content-Type': 'text/html', 'X-Request-Id': 'req-2' },
      });
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: recording(html).fetch });
    const rows: Record<string, string>[] = [];
    await expect(
      (async () => {
        for await (const row of client.jobs.results('job_1')) rows.push(row);
      })(),
    ).rejects.toMatchObject({
      name: 'NetintelError',
      status: 0,
      code: 'invalid_response',
      requestId: 'req-2',
      message: 'The results answer (HTTP 200) is text/html, not text/csv',
    });
    expect(rows).toEqual([]);
    await expect(client.lookup('192.0.2.1')).rejects.toMatchObject({ status: 0, code: 'invalid_response' });
    const untyped = () => new Response('email\na@example.com\n', { status: 200 });
    await expect(
      new Netintel({
        baseUrl: BASE_URL,
        secretKey: 'sk_x',
        fetch: recording(untyped).fetch,
      }).jobs.resultsFile('job_1'),
    ).rejects.toMatchObject({ code: 'invalid_response', message: /without a Content-Type, not text\/csv$/ });

    // The API's own answer (text/csv; charset=utf-8), its media type in any case, is read.
    for (const type of ['text/csv; charset=utf-8', 'Text/CSV', 'text/csv']) {
      const csv = () =>
        new Response('email,verdict\na@example.com,accept\n', { headers: { 'Content-Type': type } });
      const reader = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: recording(csv).fetch });
      const read: Record<string, string>[] = [];
      for await (const row of reader.jobs.results('job_1')) read.push(row);
      expect(read).toEqual([{ email: 'a@example.com', verdict: 'accept' }]);
    }
  });

  test('the secret key is in neither JSON.stringify nor util.inspect of the client', async () => {
    const secretKey = 'ni_sec_thekeyitself0123456789';
    const { requests, fetch } = recording(() => Response.json({ month: '2026-11' }));
    const client = new Netintel({ baseUrl: BASE_URL, secretKey, fetch });
    expect(JSON.stringify(client)).not.toContain(secretKey);
    expect(inspect(client, { depth: 5 })).not.toContain(secretKey);
    expect(inspect(client, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(secretKey);
    // It is still sent.
    await client.usage();
    expect(requests[0]?.headers.get('authorization')).toBe(`Bearer ${secretKey}`);
    const publishableKey = 'ni_pub_thekeyitself0123456789';
    const browser = new Netintel({ baseUrl: BASE_URL, publishableKey, fetch });
    expect(JSON.stringify(browser)).not.toContain(publishableKey);
    expect(inspect(browser, { depth: 5 })).not.toContain(publishableKey);
  });

  test('maxRetryAfterSeconds that is NaN or negative is refused by the constructor, as timeoutMs is', () => {
    const { fetch } = recording(queued);
    for (const maxRetryAfterSeconds of [Number.NaN, -1]) {
      expect(
        () => new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch, maxRetryAfterSeconds }),
      ).toThrow(
        new RangeError(
          `maxRetryAfterSeconds must be a number of seconds from 0, or Infinity (got ${String(maxRetryAfterSeconds)})`,
        ),
      );
    }
    for (const maxRetryAfterSeconds of [0, 2.5, Number.POSITIVE_INFINITY]) {
      expect(
        () => new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch, maxRetryAfterSeconds }),
      ).not.toThrow();
    }
  });

  test('an empty or missing IP or job id, or a missing address, is a TypeError before any request, not a 404 for another route', async () => {
    const { requests, fetch } = recording(queued);
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch });
    const untyped = client as unknown as Record<string, (value: unknown) => Promise<unknown>>;
    await expect(client.lookup('')).rejects.toThrow('lookup() takes a non-empty string, not an empty one');
    await expect(untyped.lookup!.call(client, undefined)).rejects.toThrow(/not undefined$/);
    await expect(untyped.validateEmail!.call(client, null)).rejects.toThrow(
      'validateEmail() takes a string, not null',
    );
    await expect(client.jobs.get('')).rejects.toThrow(TypeError);
    await expect(client.jobs.resultsFile('')).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });

  test("an empty address is the API's to judge, as any invalid one: validateEmail('') asks and returns its verdict", async () => {
    const rejected = { email: '', verdict: 'reject', reasons: ['invalid_syntax'] };
    const { requests, fetch } = recording(() => Response.json(rejected));
    const client = new Netintel({ baseUrl: BASE_URL, publishableKey: 'pk_x', fetch });
    await expect(client.validateEmail('')).resolves.toEqual(rejected);
    expect(JSON.parse(new TextDecoder().decode(requests[0]!.body))).toEqual({ email: '' });
  });

  test('an answer with fields is typed as one: a group holds only the fields of it that were named', async () => {
    const answer = { ip: '8.8.8.8', found: true, security: { isVpn: false } };
    const client = new Netintel({
      baseUrl: BASE_URL,
      secretKey: 'sk_x',
      fetch: recording(() => Response.json(answer)).fetch,
    });
    const selected = await client.lookup('8.8.8.8', { fields: ['security.isVpn'] });
    expect(selected).toEqual(answer);
    // @ts-expect-error: security.isTor was not asked for, so it may be absent (tsc checks this line).
    const isTor: boolean = selected.security!.isTor;
    expect(isTor).toBeUndefined();
    const found: boolean = selected.found;
    expect(found).toBe(true);
  });

  test('an answer over 16 MB is invalid_response, read no further (announced or not)', async () => {
    let pulled = 0;
    const endless = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled++;
            controller.enqueue(new Uint8Array(1024 * 1024).fill(0x20));
          },
        }),
        { status: 200, headers: { 'Content-Type': 'application/json' } },
      );
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: recording(endless).fetch });
    const invalid = {
      status: 0,
      code: 'invalid_response',
      message: 'The answer (HTTP 200) is over 16777216 bytes',
    };
    await expect(client.usage()).rejects.toMatchObject(invalid);
    expect(pulled).toBeLessThanOrEqual(18);
    const announced = () =>
      new Response('{}', { status: 200, headers: { 'Content-Length': String(17 * 1024 * 1024) } });
    const { requests, fetch } = recording(announced);
    await expect(new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch }).usage()).rejects.toMatchObject(
      invalid,
    );
    expect(requests).toHaveLength(1);
  });
});

describe('a batch refused for one item', () => {
  // A fake API: the batch's first bad item (not an IP, or no @) refused by its index in the batch.
  const fakeApi: typeof globalThis.fetch = async (_url, init) => {
    const body = JSON.parse(String(init?.body)) as { ips?: string[]; emails?: string[] };
    const [field, items] = body.ips ? ['ips', body.ips] : ['emails', body.emails ?? []];
    const bad = items.indexOf('nope');
    if (bad === -1)
      return new Response(JSON.stringify({ results: items.map((item) => ({ ip: item, email: item })) }), {
        status: 200,
      });
    return new Response(JSON.stringify({ error: 'invalid_field', message: `${field}[${bad}]: not valid` }), {
      status: 400,
    });
  };

  test('names the index in the whole list, not in its batch of 100', async () => {
    const client = new Netintel({ baseUrl: BASE_URL, secretKey: 'sk_x', fetch: fakeApi, concurrency: 1 });
    const ips = [...Array.from({ length: 151 }, (_, i) => `192.0.2.${i % 250}`), 'nope'];
    const error = await client.lookupMany(ips).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, message: 'ips[151]: not valid', details: { index: 151 } });
    const emails = [...Array.from({ length: 205 }, (_, i) => `u${i}@x.example`), 'nope'];
    expect(await client.checkEmails(emails).catch((e: unknown) => e)).toMatchObject({
      message: 'emails[205]: not valid',
      details: { index: 205 },
    });
    // In the first batch, the index is already the list's.
    expect(await client.checkEmails(['a@x.example', 'nope']).catch((e: unknown) => e)).toMatchObject({
      message: 'emails[1]: not valid',
      details: { index: 1 },
    });
  });
});
