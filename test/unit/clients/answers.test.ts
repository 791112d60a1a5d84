import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Netintel } from '@netintel/client';

// What the client makes of a server that answers, but not as the API does, over real HTTP on
// loopback: replies that are not HTTP it can read.

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

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => notHttp.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  notHttpUrl = `http://127.0.0.1:${(notHttp.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => notHttp.close(resolve));
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
});
