import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { SourceUnavailableError } from '../../../functions/lib/refresh/fetch.js';
import { httpFetcher } from '../../../functions/lib/refresh/http-fetcher.js';
import { readSource } from '../../../functions/lib/refresh/read-source.js';
import { parseCidrList } from '../../../functions/lib/security/sources/cidr-list.js';

// The upstream fetcher against a local HTTP server standing in for raw.githubusercontent.com.

let server: Server;
let base: string;
/** Requests seen per reset path. */
const resets = new Map<string, number>();

describe('http-fetcher', () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/list.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('# list\n198.51.100.0/24\n2001:db8::/32\n');
      } else if (req.url === '/moved') {
        res.writeHead(301, { location: '/list.txt' }).end();
      } else if (req.url === '/html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Rate limited</body></html>');
      } else if (req.url === '/slow') {
        setTimeout(() => res.writeHead(200).end('198.51.100.1\n'), 500);
      } else if (req.url === '/reset-once' || req.url === '/reset-always') {
        // The connection closed before any answer, as a kept-alive one closed by the server while idle.
        const seen = (resets.get(req.url) ?? 0) + 1;
        resets.set(req.url, seen);
        if (req.url === '/reset-always' || seen === 1) req.socket.destroy();
        else res.writeHead(200, { 'content-type': 'text/plain' }).end('198.51.100.7\n');
      } else if (req.url === '/big') {
        res.writeHead(200).end('x'.repeat(2048));
      } else {
        res.writeHead(404).end('Not Found');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const file = (path: string, optional = false) => ({
    id: `test${path.replace('/', '-')}`,
    url: `${base}${path}`,
    snapshot: null,
    optional,
    parse: parseCidrList,
  });

  describe('fetching sources upstream', () => {
    test('a connection reset before any answer is tried once more; a second reset is the upstream unavailable', async () => {
      const fetched = await httpFetcher().fetch(file('/reset-once'));
      expect(fetched.text).toBe('198.51.100.7\n');
      expect(resets.get('/reset-once')).toBe(2);
      await expect(httpFetcher().fetch(file('/reset-always'))).rejects.toThrow(
        expect.objectContaining({
          name: 'SourceUnavailableError',
          message: expect.stringMatching(/ECONNRESET|UND_ERR_SOCKET/),
        }),
      );
      expect(resets.get('/reset-always')).toBe(2);
    });

    test('a list is fetched, following redirects, and stamped with the fetch time', async () => {
      const at = new Date('2026-11-22T06:00:00Z');
      const fetched = await httpFetcher({ now: () => at }).fetch(file('/moved'));
      expect(fetched.text).toContain('198.51.100.0/24');
      expect(fetched.fetchedAt).toBe(at);
    });

    test.each([
      ['an HTTP error', '/missing', {}],
      ['a timeout', '/slow', { timeoutMs: 50 }],
      ['a body over the size cap', '/big', { maxBytes: 1024 }],
    ])('%s is SourceUnavailableError', async (_, path, options) => {
      await expect(httpFetcher(options).fetch(file(path))).rejects.toThrow(SourceUnavailableError);
    });

    test('a required source answering an HTML page is a rejection; an optional one is left out', async () => {
      const required = await readSource(httpFetcher(), file('/html'));
      expect(required.failure?.reason).toContain('SourceFormatError');
      const optional = await readSource(httpFetcher(), file('/html', true));
      expect(optional.failure).toBeNull();
      expect(optional.report).toMatchObject({ status: 'unavailable', count: 0, optional: true });
      const good = await readSource(httpFetcher(), file('/list.txt'));
      expect(good.report).toMatchObject({ status: 'ok', count: 2, invalid: 0 });
    });
  });
});
