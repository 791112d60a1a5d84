import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, type ErrorBody } from '../../functions/lib/http/errors.js';

// Requests Node's HTTP parser refuses before any handler runs (a garbage request line, headers
// over the limit, a request that never finishes arriving). Node's own answer is a bare status line;
// the local server answers in the API's shape instead, as API Gateway does for what it refuses:
// `{error, message}`, then the connection is closed because the parser cannot resynchronise.

/** What Node's parser reported (llhttp's `code` and `reason`, or Node's own error codes). */
export interface ParserError extends Error {
  code?: string;
  reason?: string;
}

/** The error code and message for a parser failure, following Node's own status choices. */
export function clientErrorBody(err: ParserError, headerLimit = maxHeaderSize): ErrorBody {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        error: 'headers_too_large',
        message: `The request's headers are larger than ${Math.round(headerLimit / 1024)} KB.`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { error: 'body_too_large', message: 'The chunk extensions of the request body are too large.' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { error: 'request_timeout', message: 'The request did not arrive in time.' };
    default:
      return {
        error: 'bad_request',
        message: `The request is not valid HTTP/1.1${err.reason ? ` (${err.reason.toLowerCase()})` : ''}.`,
      };
  }
}

/** The whole raw HTTP/1.1 response for a parser failure. */
export function clientErrorResponse(err: ParserError, headerLimit = maxHeaderSize): string {
  return rawErrorResponse(clientErrorBody(err, headerLimit));
}

/** `{error, message}` as a whole raw HTTP/1.1 response that closes the connection. */
function rawErrorResponse(body: ErrorBody): string {
  const status = ERROR_CODES[body.error];
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(json)}`,
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}

/**
 * The server's 'clientError' listener. With a listener, Node leaves the socket to us: answer when
 * nothing of a response has been written on it yet (the guard Node's default handler uses, so a
 * half-sent response is never corrupted), then close; a reset peer is just closed.
 */
export function answerClientError(err: ParserError, socket: Duplex, headerLimit = maxHeaderSize): void {
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(err, headerLimit));
}

/**
 * The server's 'connect' listener. A CONNECT request asks for a tunnel, which this server does not
 * give (nor does API Gateway): without a listener Node closes the socket without a word, so the
 * client gets the API's 400 instead, then the connection is closed.
 *
 * Node hands the socket over with none of its own listeners: an error on it (the client resets the
 * connection) would be unhandled and stop the process, so it closes the socket instead. What the
 * client sends after its request is read and dropped, so its end is seen and the socket closes.
 */
export function answerConnect(socket: Duplex): void {
  socket.on('error', () => socket.destroy());
  socket.resume();
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    rawErrorResponse({
      error: 'bad_request',
      message: 'CONNECT is not served: this is an HTTP API, not a proxy.',
    }),
  );
}
