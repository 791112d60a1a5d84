import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from '@jest/globals';
import { RESPONSE_EXCERPT_BYTES } from '../../../functions/lib/webhooks/delivery.js';
import {
  DestinationRefusedError,
  guardedLookup,
  type Resolve,
} from '../../../functions/lib/webhooks/destination.js';
import { httpPost } from '../../../functions/lib/webhooks/post.js';

// The POST of a delivery (functions/lib/webhooks/post.ts) against a real node:http server on
// 127.0.0.1, reached by a name a stub resolver maps there: what is recorded of an answer, an answer
// cut at RESPONSE_EXCERPT_BYTES without reading the rest, a receiver that never answers, a redirect
// not followed, and a name resolving to a private address refused before any connection. Nothing
// here connects anywhere but 127.0.0.1.

const LOCAL = { allowLoopback: true };

/** The tests' last net (the local test stack sets the same): anything but 127.0.0.1 throws. */
function loopbackOnly(address: string): void {
  if (address !== '127.0.0.1') throw new Error(`the tests connect to loopback only, not ${address}`);
}

/** A resolver that answers from a table and records what it was asked. */
function stubResolver(table: Record<string, readonly string[]>): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    return (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A server on 127.0.0.1 answering with `handle`; it counts connections and keeps every request. */
async function startServer(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const requests: Received[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    requests,
    connections: () => connections,
    url: (path: string, host = 'receiver.test') => new URL(`http://${host}:${port}${path}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const HEADERS = { 'content-type': 'application/json', 'Netintel-Signature': 't=1,v1=00' };
const BODY = JSON.stringify({ id: 'evt_post', type: 'webhook.test' });

describe('the POST of a webhook delivery', () => {
  test('the status and the start of the answer are recorded; the body and headers arrive as given', async () => {
    const server = await startServer((_req, res) =>
      res.writeHead(201, { 'content-type': 'text/plain' }).end('stored'),
    );
    const resolve = stubResolver({ 'receiver.test': ['127.0.0.1'] });
    try {
      const result = await httpPost({ policy: LOCAL, resolve })(server.url('/hook'), BODY, HEADERS);
      expect(result).toEqual({ status: 201, response: 'stored', latencyMs: expect.any(Number) });
      expect(result.latencyMs).toBeGreaterThanOrEqual(0);
      expect(resolve.asked).toEqual(['receiver.test']);
      expect(server.requests).toEqual([
        {
          path: '/hook',
          body: BODY,
          headers: expect.objectContaining({
            host: `receiver.test:${server.port}`,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(BODY)),
            'netintel-signature': 't=1,v1=00',
          }),
        },
      ]);
    } finally {
      await server.close();
    }
  });

  test(`an answer longer than ${RESPONSE_EXCERPT_BYTES} bytes is cut there, and the rest is never read`, async () => {
    const TOTAL = 5 * 1024 * 1024;
    const CHUNK = 64 * 1024;
    let written = 0;
    let serverClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      serverClosed = resolve;
    });
    const server = await startServer((_req, res) => {
      res.on('close', serverClosed);
      res.writeHead(500, { 'content-type': 'text/plain' });
      // 5 MB, one chunk every 10 ms (most of a second in all), unless the client goes away.
      const next = () => {
        if (res.destroyed || written >= TOTAL) return void res.end();
        res.write(Buffer.alloc(CHUNK, written === 0 ? 'a' : 'b'));
        written += CHUNK;
        setTimeout(next, 10);
      };
      next();
    });
    try {
      const result = await httpPost({
        policy: LOCAL,
        resolve: stubResolver({ 'receiver.test': ['127.0.0.1'] }),
      })(server.url('/big'), BODY, HEADERS);
      expect(result.status).toBe(500);
      expect(result.response).toBe('a'.repeat(RESPONSE_EXCERPT_BYTES));
      // The client hung up long before the server could write it all.
      await closed;
      expect(written).toBeLessThan(TOTAL);
    } finally {
      await server.close();
    }
  });

  test('a receiver that never answers: no status, "no answer within" the bound', async () => {
    let requestClosed!: () => void;
    const gone = new Promise<void>((resolve) => {
      requestClosed = resolve;
    });
    const server = await startServer((req) => {
      req.socket.on('close', requestClosed);
    });
    try {
      const post = httpPost({
        policy: LOCAL,
        resolve: stubResolver({ 'receiver.test': ['127.0.0.1'] }),
        timeoutMs: 200,
      });
      const result = await post(server.url('/hang'), BODY, HEADERS);
      expect(result).toEqual({
        status: null,
        response: 'no answer within 0.2 s',
        latencyMs: expect.any(Number),
      });
      // The connection is given up, not left open.
      await gone;
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  test('a redirect is not followed: its status is the outcome', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/moved')
        res
          .writeHead(302, { location: `http://receiver.test:${(req.socket.localPort ?? 0).toString()}/new` })
          .end('see /new');
      else res.writeHead(200).end('ok');
    });
    try {
      const result = await httpPost({
        policy: LOCAL,
        resolve: stubResolver({ 'receiver.test': ['127.0.0.1'] }),
      })(server.url('/moved'), BODY, HEADERS);
      expect(result).toMatchObject({ status: 302, response: 'see /new' });
      expect(server.requests.map((r) => r.path)).toEqual(['/moved']);
    } finally {
      await server.close();
    }
  });

  test('a refused connection is a connection error, without status', async () => {
    const server = await startServer(() => {});
    const url = server.url('/hook');
    await server.close();
    const result = await httpPost({
      policy: LOCAL,
      resolve: stubResolver({ 'receiver.test': ['127.0.0.1'] }),
    })(url, BODY, HEADERS);
    expect(result).toMatchObject({ status: null, response: 'connection failed: ECONNREFUSED' });
    expect(result.refused).toBe(false);
  });

  test('a name resolving to a private address is refused before any connection is attempted', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end('ok'));
    const resolve = stubResolver({
      'rebind.test': ['10.0.0.1'],
      // Should the guard ever let this one through, the connection would go to 127.0.0.1 (the
      // first address) and the server would count it.
      'mixed.test': ['127.0.0.1', '10.0.0.1'],
    });
    try {
      // The guard refuses the private-only name (checked first: were it to let it through,
      // httpPost would be sent to 10.0.0.1).
      const guarded = await new Promise<unknown>((done) =>
        guardedLookup(resolve, LOCAL)('rebind.test', { all: true }, (error) => done(error)),
      );
      expect(guarded).toBeInstanceOf(DestinationRefusedError);
      resolve.asked.length = 0;

      const post = httpPost({ policy: LOCAL, resolve, connectGuard: loopbackOnly });
      for (const host of ['mixed.test', 'rebind.test']) {
        const result = await post(server.url('/hook', host), BODY, HEADERS);
        expect(result).toEqual({
          status: null,
          refused: true,
          response: `refused: ${host} resolves to 10.0.0.1 is a private address`,
          latencyMs: expect.any(Number),
        });
      }
      expect(resolve.asked).toEqual(['mixed.test', 'rebind.test']);
      expect(server.connections()).toBe(0);
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test('the connect guard is the last word: an address it refuses is never connected to, by name or literal', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end('ok'));
    const resolve = stubResolver({ 'receiver.test': ['127.0.0.1'] });
    const refused: string[] = [];
    const post = httpPost({
      policy: LOCAL,
      resolve,
      connectGuard: (address) => {
        refused.push(address);
        throw new Error(`not ${address}`);
      },
    });
    try {
      for (const url of [server.url('/hook'), server.url('/hook', '127.0.0.1')]) {
        expect(await post(url, BODY, HEADERS)).toMatchObject({ status: null, refused: true });
      }
      expect(refused).toEqual(['127.0.0.1', '127.0.0.1']);
      expect(server.connections()).toBe(0);
    } finally {
      await server.close();
    }
  });
});
