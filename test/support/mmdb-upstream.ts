import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { packTar } from 'modern-tar';

// A loopback imitation (node:http on 127.0.0.1:<random port>) of the two places a deployer's own
// MMDB database is downloaded from, for the tests of functions/lib/refresh/mmdb-download.ts:
//
// MaxMind (dev.maxmind.com, "Directly downloading databases"):
//   GET|HEAD /geoip/databases/<edition>/download?suffix=tar.gz       basic auth, else 401; 304 when
//            If-Modified-Since is not older than the build; else 302 to /r2/<edition>/<file> (this
//            server, or `storageOrigin` to imitate R2 on another host), which serves the bytes with
//            Last-Modified, Content-Length and Content-Disposition
//   GET      /geoip/databases/<edition>/download?suffix=tar.gz.sha256  "<sha256>  <file name>\n"
//   The archive is built here as MaxMind's are: <edition>_<YYYYMMDD>/ holding <edition>.mmdb,
//   LICENSE.txt and COPYRIGHT.txt.
// IPinfo (community.ipinfo.io, data downloads and their checksum endpoint):
//   GET|HEAD /data/ipinfo_lite.mmdb?token=<token>            403 for a wrong token; else 302 to
//            /cdn/ipinfo_lite.mmdb (as IPinfo redirects to its CDN), which serves the plain .mmdb
//   GET      /data/ipinfo_lite.mmdb/checksums?token=<token>  {"checksums": {"md5", "sha1", "sha256"}}
//
// The test says what each edition serves (`serve`), can make it misbehave (`fault`), and reads how
// many times each database body was sent (`downloads`) and every request seen (`requests`).

/** The edition name IPinfo Lite is served under. */
export const IPINFO_LITE = 'ipinfo_lite';

/**
 * truncated-archive  the archive (or IPinfo's .mmdb) cut in half, with a checksum that matches the cut bytes
 * truncated-mmdb     a well-formed archive holding the .mmdb cut in half (checksum matches)
 * wrong-checksum     the published checksum is not the one of the bytes served
 * two-mmdb           the archive holds a second .mmdb
 */
export type UpstreamFault = 'truncated-archive' | 'truncated-mmdb' | 'wrong-checksum' | 'two-mmdb';

export interface SeenRequest {
  readonly method: string;
  readonly pathname: string;
  readonly status: number;
  readonly authorization: string | undefined;
  readonly ifModifiedSince: string | undefined;
}

export interface MmdbUpstream {
  /** http://127.0.0.1:<port>: the base URL of both the MaxMind and the IPinfo imitation. */
  readonly origin: string;
  /** Makes `edition` ("GeoLite2-City", ..., or IPINFO_LITE) serve these bytes, built at that time. */
  serve(edition: string, mmdb: Uint8Array, lastModified: Date): void;
  fault(edition: string, fault: UpstreamFault | null): void;
  /** GETs of the database body of `edition` answered with the bytes. */
  downloads(edition: string): number;
  readonly requests: readonly SeenRequest[];
  close(): Promise<void>;
}

interface Served {
  mmdb: Uint8Array;
  lastModified: Date;
  fault: UpstreamFault | null;
  artifact: Promise<Artifact> | null;
}

interface Artifact {
  /** What the body URL sends: the tar.gz (MaxMind) or the .mmdb (IPinfo). */
  readonly bytes: Buffer;
  readonly fileName: string;
  readonly sha256: string;
}

function yyyymmdd(date: Date): string {
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function half(bytes: Uint8Array): Uint8Array {
  return bytes.subarray(0, Math.floor(bytes.byteLength / 2));
}

async function buildArtifact(edition: string, served: Served): Promise<Artifact> {
  const { fault, lastModified } = served;
  let mmdb = served.mmdb;
  if (fault === 'truncated-mmdb') mmdb = half(mmdb);
  let bytes: Uint8Array;
  let fileName: string;
  if (edition === IPINFO_LITE) {
    fileName = 'ipinfo_lite.mmdb';
    bytes = fault === 'truncated-archive' ? half(mmdb) : mmdb;
  } else {
    const dir = `${edition}_${yyyymmdd(lastModified)}`;
    fileName = `${dir}.tar.gz`;
    const text = (body: string, name: string) => ({
      header: { name: `${dir}/${name}`, size: Buffer.byteLength(body), mtime: lastModified },
      body,
    });
    const tar = await packTar([
      { header: { name: `${dir}/`, type: 'directory', size: 0, mtime: lastModified } },
      text('Test data for netintel, not a MaxMind licence.\n', 'LICENSE.txt'),
      text('Invented records; no MaxMind data.\n', 'COPYRIGHT.txt'),
      { header: { name: `${dir}/${edition}.mmdb`, size: mmdb.byteLength, mtime: lastModified }, body: mmdb },
      ...(fault === 'two-mmdb'
        ? [{ header: { name: `${dir}/other.mmdb`, size: mmdb.byteLength, mtime: lastModified }, body: mmdb }]
        : []),
    ]);
    const archive = gzipSync(tar);
    bytes = fault === 'truncated-archive' ? half(archive) : archive;
  }
  const published = fault === 'wrong-checksum' ? sha256(Buffer.from('something else')) : sha256(bytes);
  return { bytes: Buffer.from(bytes), fileName, sha256: published };
}

/** Whether If-Modified-Since says the client has the build already (HTTP dates have whole seconds). */
function notModified(req: IncomingMessage, lastModified: Date): boolean {
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && since >= Math.floor(lastModified.getTime() / 1000) * 1000;
}

export async function startMmdbUpstream(options: {
  accountId: string;
  licenseKey: string;
  token: string;
  /** Origin the download URLs redirect to (another upstream, imitating R2 or IPinfo's CDN); this one by default. */
  storageOrigin?: string;
}): Promise<MmdbUpstream> {
  const editions = new Map<string, Served>();
  const counts = new Map<string, number>();
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const expectedAuth = `Basic ${Buffer.from(`${options.accountId}:${options.licenseKey}`).toString('base64')}`;
  let origin = '';

  const artifact = (edition: string, served: Served): Promise<Artifact> => {
    served.artifact ??= buildArtifact(edition, served);
    return served.artifact;
  };

  const send = (
    res: ServerResponse,
    status: number,
    headers: Record<string, string>,
    body?: string | Buffer,
  ) => {
    res.writeHead(status, headers);
    res.end(body);
  };

  /** The presigned-storage side: /r2/<edition>/<file> and /cdn/ipinfo_lite.mmdb. */
  const storage = async (req: IncomingMessage, res: ServerResponse, edition: string, url: URL) => {
    const served = editions.get(edition);
    if (!served) return send(res, 404, { 'content-type': 'text/plain' }, 'NoSuchKey');
    if (!url.searchParams.get('X-Amz-Signature'))
      return send(res, 403, { 'content-type': 'text/plain' }, 'no signature');
    const { bytes, fileName } = await artifact(edition, served);
    const headers = {
      'last-modified': served.lastModified.toUTCString(),
      'content-type': edition === IPINFO_LITE ? 'application/octet-stream' : 'application/gzip',
      'content-disposition': `attachment; filename=${fileName}`,
    };
    if (notModified(req, served.lastModified)) return send(res, 304, headers);
    res.writeHead(200, { ...headers, 'content-length': String(bytes.byteLength) });
    if (req.method === 'HEAD') return res.end();
    counts.set(edition, (counts.get(edition) ?? 0) + 1);
    res.end(bytes);
  };

  const redirect = (res: ServerResponse, path: string) => {
    const target = new URL(path, options.storageOrigin ?? origin);
    target.searchParams.set('X-Amz-Expires', '3600');
    target.searchParams.set('X-Amz-Signature', randomBytes(16).toString('hex'));
    send(res, 302, { location: target.toString() });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', origin);
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') return send(res, 405, {});

    const maxmind = /^\/geoip\/databases\/([A-Za-z0-9-]+)\/download$/.exec(url.pathname);
    if (maxmind) {
      const edition = maxmind[1]!;
      if (req.headers.authorization !== expectedAuth) {
        return send(
          res,
          401,
          { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="MaxMind"' },
          JSON.stringify({ code: 'INVALID_LICENSE_KEY', error: 'Invalid account ID or license key.' }),
        );
      }
      const served = editions.get(edition);
      if (!served)
        return send(res, 404, { 'content-type': 'application/json' }, '{"error":"Database not found"}');
      const suffix = url.searchParams.get('suffix');
      if (suffix === 'tar.gz.sha256') {
        const { sha256: sum, fileName } = await artifact(edition, served);
        return send(res, 200, { 'content-type': 'text/plain' }, `${sum}  ${fileName}\n`);
      }
      if (suffix !== 'tar.gz') return send(res, 400, { 'content-type': 'text/plain' }, 'Invalid suffix');
      if (notModified(req, served.lastModified)) {
        return send(res, 304, { 'last-modified': served.lastModified.toUTCString() });
      }
      const { fileName } = await artifact(edition, served);
      return redirect(res, `/r2/${edition}/${fileName}`);
    }

    const r2 = /^\/r2\/([A-Za-z0-9-]+)\/[^/]+$/.exec(url.pathname);
    if (r2) return storage(req, res, r2[1]!, url);
    if (url.pathname === '/cdn/ipinfo_lite.mmdb') return storage(req, res, IPINFO_LITE, url);

    if (url.pathname === '/data/ipinfo_lite.mmdb' || url.pathname === '/data/ipinfo_lite.mmdb/checksums') {
      if (url.searchParams.get('token') !== options.token) {
        return send(res, 403, { 'content-type': 'application/json' }, '{"error":"Unknown token"}');
      }
      const served = editions.get(IPINFO_LITE);
      if (!served) return send(res, 404, { 'content-type': 'application/json' }, '{"error":"Not found"}');
      if (url.pathname.endsWith('/checksums')) {
        const { bytes, sha256: sum } = await artifact(IPINFO_LITE, served);
        const checksums = {
          md5: createHash('md5').update(bytes).digest('hex'),
          sha1: createHash('sha1').update(bytes).digest('hex'),
          sha256: sum,
        };
        return send(res, 200, { 'content-type': 'application/json' }, JSON.stringify({ checksums }));
      }
      return redirect(res, '/cdn/ipinfo_lite.mmdb');
    }
    send(res, 404, { 'content-type': 'text/plain' }, 'not found');
  };

  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    res.on('finish', () =>
      requests.push({
        method: req.method ?? 'GET',
        pathname,
        status: res.statusCode,
        authorization: req.headers.authorization,
        ifModifiedSince: req.headers['if-modified-since'],
      }),
    );
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { 'content-type': 'text/plain' }, String(error));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    serve(edition, mmdb, lastModified) {
      const fault = editions.get(edition)?.fault ?? null;
      editions.set(edition, { mmdb, lastModified, fault, artifact: null });
    },
    fault(edition, fault) {
      const served = editions.get(edition);
      if (!served) throw new Error(`serve ${edition} before setting a fault`);
      served.fault = fault;
      served.artifact = null;
    },
    downloads: (edition) => counts.get(edition) ?? 0,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
