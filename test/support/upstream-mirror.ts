import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { EMAIL_SOURCES } from '../../functions/lib/refresh/email-build.js';
import { SECURITY_SOURCES } from '../../functions/lib/security/sources/catalog.js';

// Every upstream of the data refresh on one loopback server, laid out as DATA_UPSTREAM_MIRROR
// expects (`https://host/path` is fetched from `<mirror>/host/path`): the list sources from a
// snapshot folder (the test fixtures), files a test serves itself (GeoNames' dumps, a geofeed, a
// list with other content), and hosts forwarded to another loopback server (the MaxMind and IPinfo
// imitation of mmdb-upstream.ts). Nothing here connects outside the machine.

export interface UpstreamMirror {
  /** The DATA_UPSTREAM_MIRROR value. */
  readonly url: string;
  /** Serves `body` at an upstream URL (`https://host/path`), in place of the snapshot. */
  serve(upstreamUrl: string, body: string | Uint8Array): void;
  /** Upstream URLs requested so far (without the mirror prefix). */
  readonly requests: string[];
  /** Stops answering: every later request fails to connect, as when the upstreams are down. */
  close(): Promise<void>;
}

/** Upstream URL → snapshot path of every list source. */
function snapshotPaths(): Map<string, string> {
  const out = new Map<string, string>();
  for (const source of SECURITY_SOURCES) {
    for (const file of source.files) if (file.snapshot) out.set(file.url, file.snapshot);
  }
  for (const source of EMAIL_SOURCES) {
    if (source.file.snapshot) out.set(source.file.url, source.file.snapshot);
  }
  return out;
}

export async function startUpstreamMirror(options: {
  /** Folder laid out like the snapshots (test/fixtures/security/snapshots). */
  snapshots: string;
  /** Host → loopback origin to forward to (`download.maxmind.com` → `http://127.0.0.1:1234`). */
  forward?: Record<string, string>;
}): Promise<UpstreamMirror> {
  const served = new Map<string, Uint8Array>();
  const paths = snapshotPaths();
  const requests: string[] = [];
  const sockets = new Set<Socket>();

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://mirror');
    const [, host = '', ...rest] = url.pathname.split('/');
    const path = `/${rest.join('/')}`;
    const upstream = `https://${host}${path}`;
    requests.push(`${upstream}${url.search}`);
    const forward = options.forward?.[host];
    if (forward) {
      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'if-modified-since', 'user-agent']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const reply = await fetch(`${forward}${path}${url.search}`, {
        method: req.method,
        headers,
        redirect: 'manual',
      });
      const out: Record<string, string> = {};
      reply.headers.forEach((value, name) => {
        if (name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'connection')
          out[name] = value;
      });
      const body = req.method === 'HEAD' ? undefined : Buffer.from(await reply.arrayBuffer());
      res.writeHead(reply.status, out);
      res.end(body);
      return;
    }
    const own = served.get(upstream);
    if (own) {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': String(own.byteLength),
      });
      res.end(req.method === 'HEAD' ? undefined : own);
      return;
    }
    const snapshot = paths.get(upstream);
    const body = snapshot ? await readFile(join(options.snapshots, snapshot)).catch(() => null) : null;
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not mirrored');
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(body.byteLength),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  const server = createServer((req, res) => {
    answer(req, res).catch((error: Error) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(error.message);
    });
  });
  // Idle connections are kept longer than a refresh's compile takes, as a CDN keeps them.
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    serve: (upstreamUrl, body) => {
      served.set(upstreamUrl, typeof body === 'string' ? new TextEncoder().encode(body) : body);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
