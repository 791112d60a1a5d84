import { connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, expect, test } from '@jest/globals';
import { startGateway } from '../../../scripts/local/api-gateway.js';
import {
  answerClientError,
  clientErrorResponse,
  type ParserError,
} from '../../../scripts/local/client-error.js';
import { testServices } from '../../support/services.js';

const parserError = (code: string, reason?: string): ParserError =>
  Object.assign(new Error(reason ?? code), { code, ...(reason ? { reason } : {}) });

/** Status line and JSON body of a raw response. */
function parse(raw: string) {
  const [head, body] = raw.split('\r\n\r\n') as [string, string];
  const lines = head.split('\r\n');
  return { statusLine: lines[0], headers: lines.slice(1), body: JSON.parse(body) };
}

describe('client-error', () => {
  describe("what Node's parser refuses is answered as {error, message} (local server)", () => {
    test.each([
      ['HPE_HEADER_OVERFLOW', 'HTTP/1.1 431 Request Header Fields Too Large', 'headers_too_large'],
      ['HPE_INVALID_METHOD', 'HTTP/1.1 400 Bad Request', 'bad_request'],
      ['HPE_INVALID_HEADER_TOKEN', 'HTTP/1.1 400 Bad Request', 'bad_request'],
      ['ERR_HTTP_REQUEST_TIMEOUT', 'HTTP/1.1 408 Request Timeout', 'request_timeout'],
      ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 'HTTP/1.1 413 Payload Too Large', 'body_too_large'],
    ])('%s is %s with error %s and Connection: close', (code, statusLine, error) => {
      const response = parse(clientErrorResponse(parserError(code)));
      expect(response).toEqual({
        statusLine,
        headers: expect.arrayContaining(['Content-Type: application/json', 'Connection: close']),
        body: { error, message: expect.any(String) },
      });
    });

    test('Content-Length counts the bytes of the body', () => {
      const raw = clientErrorResponse(parserError('HPE_INVALID_METHOD', 'Invalid method encountered'));
      const body = raw.split('\r\n\r\n')[1]!;
      expect(raw).toContain(`Content-Length: ${Buffer.byteLength(body)}\r\n`);
      expect(JSON.parse(body).message).toBe(
        'The request is not valid HTTP/1.1 (invalid method encountered).',
      );
    });

    test('a CONNECT whose client then resets the connection leaves the server answering', async () => {
      // The tunnel request is answered without any route or function: a gateway of no project.
      const gateway = await startGateway({
        projectRoot: '/nonexistent',
        services: testServices(),
        port: 0,
        trustForwardedFor: false,
        logger: { info: () => undefined, error: () => undefined },
      });
      try {
        const { port } = new URL(gateway.url);
        const handedOver = new Promise<Socket>((resolve) =>
          gateway.server.once('connect', (_req, socket: Socket) => resolve(socket)),
        );
        const client = connect(Number(port), '127.0.0.1');
        client.on('error', () => undefined);
        let answer = '';
        const answered = new Promise<void>((resolve) =>
          client.on('data', (chunk) => {
            answer += String(chunk);
            if (answer.includes('}')) resolve();
          }),
        );
        client.write('CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n');
        const socket = await handedOver;
        await answered;
        expect(answer).toMatch(/^HTTP\/1\.1 400 /);
        // A reset (SO_LINGER 0) rather than an orderly close: the server's socket errors.
        client.resetAndDestroy();
        await new Promise((resolve) => socket.once('close', resolve));

        const res = await fetch(`${gateway.url}/v1/no-such-route`);
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ error: 'not_found', message: expect.any(String) });
      } finally {
        await gateway.close();
      }
    });

    test('a response already being written on the socket is never corrupted: the socket is closed', () => {
      const socket = Object.assign(new PassThrough(), { _httpMessage: { headersSent: true } });
      const written: string[] = [];
      socket.on('data', (chunk) => written.push(String(chunk)));

      answerClientError(parserError('HPE_INVALID_METHOD'), socket);

      expect(socket.destroyed).toBe(true);
      expect(written).toEqual([]);
    });
  });
});
