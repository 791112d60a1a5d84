import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Netintel } from '@netintel/client';

// What the client makes of a server that answers, but not as the API does, over real HTTP on
// loopback: results that are not CSV, a download that stalls, replies that are not HTTP it can
// read. Small timeoutMs values keep the stalls short; nothing waits on the wall clock otherwise.

const handlers = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
const counts = new Map<string, number>();
const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  counts.set(path, (counts.get(path) ?? 0) + 1);
  const handler = handlers.get(path);
  if (handler) handler(req, res);
  else res.writeHead(404).end();
});
/** Answers anything with a line that is not HTTP. */
const notHttp: TcpServer = createTcpServer((socket) => {
  socket.on('data', () => socket.end('HELLO THIS IS NOT HTTP\r\n\r\n'));
});
let baseUrl = '';
let notHttpUrl = '';
const open: ServerResponse[] = [];

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => notHttp.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  notHttpUrl = `http://127.0.0.1:${(notHttp.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => notHttp.close(resolve));
});

const resultsPath = (id: string) => `/v1/email/jobs/${id}/results`;

async function rowsOf(client: Netintel, id: string): Promise<Record<string, string>[]> {
  const rows: Record<string, string>[] = [];
  for await (const row of client.jobs.results(id)) rows.push(row);
  return rows;
}

describe('results answers over loopback', () => {
  test("an HTML page is invalid_response; the storage's text/csv object behind the redirect is read", async () => {
    handlers.set(resultsPath('job_html'), (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>hi</html>');
    });
    handlers.set(resultsPath('job_big'), (_req, res) => {
      res.writeHead(302, { Location: '/bucket/job_big.csv' }).end();
    });
    handlers.set('/bucket/job_big.csv', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/csv' }).end('email,verdict\na@example.com,accept\n');
    });
    const client = new Netintel({ baseUrl, secretKey: 'sk_x' });
    await expect(rowsOf(client, 'job_html')).rejects.toMatchObject({
      status: 0,
      code: 'invalid_response',
      message: 'The results answer (HTTP 200) is text/html, not text/csv',
    });
    expect(await rowsOf(client, 'job_big')).toEqual([{ email: 'a@example.com', verdict: 'accept' }]);
  });

  test('a download that stalls after its first byte, or drips slower than timeoutMs, is a timeout', async () => {
    handlers.set(resultsPath('job_stall'), (_req, res) => {
      open.push(res);
      res.writeHead(200, { 'Content-Type': 'text/csv' });
      res.write('e');
    });
    handlers.set(resultsPath('job_drip'), (_req, res) => {
      open.push(res);
      res.writeHead(200, { 'Content-Type': 'text/csv' });
      res.write('e');
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('m')), 200);
      res.on('close', () => clearInterval(drip));
    });
    const client = new Netintel({ baseUrl, secretKey: 'sk_x', timeoutMs: 100, maxRetries: 0 });
    await expect(rowsOf(client, 'job_stall')).rejects.toMatchObject({
      status: 0,
      code: 'timeout',
      message: `The results download from ${baseUrl} stalled: no byte within 100 ms after 1 bytes`,
    });
    await expect(rowsOf(client, 'job_drip')).rejects.toMatchObject({ status: 0, code: 'timeout' });
    // A per-call timeoutMs is the download's too.
    const patient = new Netintel({ baseUrl, secretKey: 'sk_x', timeoutMs: 60_000 });
    await expect(
      (async () => {
        for await (const _ of patient.jobs.results('job_stall', { timeoutMs: 50 })) void _;
      })(),
    ).rejects.toMatchObject({ code: 'timeout', message: /no byte within 50 ms/ });
  });
});

describe('an answer the client cannot read', () => {
  test('is invalid_response, tried once, where the server answered; a connection refused stays network_error', async () => {
    handlers.set('/v1/usage', (req, res) => {
      const kind = new URL(req.url ?? '/', 'http://x').searchParams.get('days');
      if (kind === '1') res.writeHead(999, { 'Content-Type': 'application/json' }).end('{}');
      else if (kind === '2') res.writeHead(600, { 'Content-Type': 'application/json' }).end('{}');
      else if (kind === '3')
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end('{"a":1}');
      else res.writeHead(302, { Location: req.url }).end(); // a redirect loop
    });
    const client = new Netintel({ baseUrl, secretKey: 'sk_x' });
    const cases: [number, RegExp][] = [
      [1, /^The answer's HTTP status 999 is not one HTTP has$/],
      [2, /^The answer's HTTP status 600 is not one HTTP has$/],
      [3, /the body is not in its Content-Encoding$/],
      [4, /it redirects in a loop$/],
    ];
    for (const [days, message] of cases) {
      counts.clear();
      await expect(client.usage({ days })).rejects.toMatchObject({
        status: 0,
        code: 'invalid_response',
        message,
      });
      // Not retried: the redirect loop is fetch's own 20 redirects plus the first request, once.
      expect(counts.get('/v1/usage')).toBe(days === 4 ? 21 : 1);
    }

    let tries = 0;
    const counted: typeof fetch = (url, init) => {
      tries++;
      return fetch(url, init);
    };
    await expect(
      new Netintel({ baseUrl: notHttpUrl, secretKey: 'sk_x', fetch: counted }).usage(),
    ).rejects.toMatchObject({
      status: 0,
      code: 'invalid_response',
      message: `The answer from ${notHttpUrl} is not one the client can read: the reply is not HTTP`,
    });
    expect(tries).toBe(1);

    // Nothing listens here: no answer at all, still network_error (tried once with maxRetries 0).
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      new Netintel({ baseUrl: closedUrl, secretKey: 'sk_x', maxRetries: 0 }).usage(),
    ).rejects.toMatchObject({
      status: 0,
      code: 'network_error',
      message: `Cannot reach the API at ${closedUrl}`,
    });
  });

  test('a results file that is not in its Content-Encoding is invalid_response, not a cut-off', async () => {
    handlers.set(resultsPath('job_gzip'), (_req, res) => {
      res
        .writeHead(200, { 'Content-Type': 'text/csv', 'Content-Encoding': 'gzip' })
        .end('email\na@b.example\n');
    });
    await expect(rowsOf(new Netintel({ baseUrl, secretKey: 'sk_x' }), 'job_gzip')).rejects.toMatchObject({
      status: 0,
      code: 'invalid_response',
      message: `The results from ${baseUrl} are not a file the client can read: the body is not in its Content-Encoding`,
    });
  });
});
