import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { checkHostHeader } from '../../functions/lib/custom-hostnames/host-header.js';
import { preflightHeaders } from '../../functions/lib/http/cors.js';
import { DOCS_ASSETS, docsAssetPath, docsIndexHtml } from '../../functions/lib/http/docs-site.js';
import { ERROR_CODES, type ErrorCode } from '../../functions/lib/http/errors.js';
import {
  type GatewayRequestFacts,
  gatewayResponse,
  renderGatewayBody,
  renderGatewayHeaders,
} from '../../functions/lib/http/gateway-responses.js';
import {
  isBinaryMediaType,
  MINIMUM_COMPRESSION_SIZE,
  responseEncoding,
  STAGE_NAME,
} from '../../functions/lib/http/gateway-settings.js';
import { handlerEntry, matchPath, PUBLIC_ROUTES, type Route } from '../../functions/routes.js';
import { answerClientError } from './client-error.js';
import { loadHandlerModule } from './load-handler.js';

// Emulates API Gateway REST with Lambda proxy integration in front of the same handler modules the
// stack deploys: the v1 event shape, the REQUEST authorizer, gateway responses, binary media
// types, and the payload limits (10 MB request at the gateway, 6 MB per synchronous invocation).

export const GATEWAY_BODY_LIMIT = 10 * 1024 * 1024;
export const INVOKE_PAYLOAD_LIMIT = 6 * 1024 * 1024;
const INTEGRATION_TIMEOUT_MS = 29_000;

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  projectRoot: string;
  port: number;
  host?: string;
  trustForwardedFor: boolean;
  log?: (line: string) => void;
}

export interface Gateway {
  url: string;
  server: Server;
  close(): Promise<void>;
}

function lambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string | Buffer,
): void {
  const encoded = compress(res.req.headers['accept-encoding'], headers, body);
  res.writeHead(status, { ...encoded.headers, 'Content-Length': String(Buffer.byteLength(encoded.body)) });
  res.end(encoded.body);
}

/**
 * API Gateway's payload compression (the REST API's minimumCompressionSize, infra/constructs/api.ts):
 * a body of at least MINIMUM_COMPRESSION_SIZE bytes that the handler did not encode is sent with
 * the request's preferred coding when that is gzip or deflate (responseEncoding). Such a body's
 * representation depends on Accept-Encoding, so it carries `Vary: Accept-Encoding` either way.
 */
function compress(
  acceptEncoding: string | undefined,
  headers: Record<string, string>,
  body: string | Buffer,
): { headers: Record<string, string>; body: string | Buffer } {
  const names = Object.keys(headers).map((h) => h.toLowerCase());
  if (Buffer.byteLength(body) < MINIMUM_COMPRESSION_SIZE || names.includes('content-encoding')) {
    return { headers, body };
  }
  const varyName = Object.keys(headers).find((h) => h.toLowerCase() === 'vary');
  const vary = varyName ? headers[varyName]! : '';
  const out: Record<string, string> = { ...headers };
  if (varyName) delete out[varyName];
  out.Vary = vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding';
  const coding = responseEncoding(acceptEncoding);
  if (coding === null) return { headers: out, body };
  out['Content-Encoding'] = coding;
  return { headers: out, body: coding === 'gzip' ? gzipSync(body) : deflateSync(body) };
}

/** Answers with one of our error codes as `{error, message}`; returns the status. */
function sendError(res: ServerResponse, code: ErrorCode, message: string): number {
  const status = ERROR_CODES[code];
  send(res, status, { 'Content-Type': 'application/json' }, JSON.stringify({ error: code, message }));
  return status;
}

/**
 * Answers as API Gateway's gateway response of `type`: its status (our override or the type's own),
 * body and header mappings, evaluated against the authorizer context and the request's headers.
 */
function sendGateway(res: ServerResponse, type: string, facts: GatewayRequestFacts = {}): number {
  const def = gatewayResponse(type);
  send(
    res,
    def.status,
    { 'Content-Type': 'application/json', ...renderGatewayHeaders(def, facts) },
    renderGatewayBody(def, facts.authorizer),
  );
  return def.status;
}

async function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_BODY_LIMIT) return 'too_large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function headerMaps(req: IncomingMessage) {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = value; // API Gateway keeps the last value in `headers`.
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  return { headers, multiValueHeaders };
}

function queryMaps(url: URL) {
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [k, v] of url.searchParams) {
    single[k] = v;
    multi[k] = [...(multi[k] ?? []), v];
  }
  const any = Object.keys(single).length > 0;
  return { single: any ? single : null, multi: any ? multi : null };
}

function clientIp(req: IncomingMessage, trustForwardedFor: boolean): string {
  if (trustForwardedFor) {
    const xff = req.headers['x-forwarded-for'];
    const first = (Array.isArray(xff) ? xff[0] : xff)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

function decodePathParameters(params: Record<string, string>): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      out[k] = v;
    }
  }
  return Object.keys(out).length > 0 ? out : null;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const log = options.log ?? (() => undefined);

  async function serveDocs(path: string, res: ServerResponse): Promise<number> {
    if (path === '/docs' || path === '/docs/' || path === '/docs/index.html') {
      send(res, 200, { 'Content-Type': 'text/html; charset=utf-8' }, docsIndexHtml());
      return 200;
    }
    const asset = DOCS_ASSETS.find((a) => path === `/docs/${a}`);
    if (!asset) return sendGateway(res, 'MISSING_AUTHENTICATION_TOKEN');
    const type = asset.endsWith('.css') ? 'text/css' : 'application/javascript';
    send(
      res,
      200,
      { 'Content-Type': type, 'Cache-Control': 'max-age=3600' },
      await readFile(docsAssetPath(asset)),
    );
    return 200;
  }

  async function invoke(
    name: string,
    timeoutSeconds: number,
    event: APIGatewayProxyEvent,
  ): Promise<APIGatewayProxyResult | 'timeout'> {
    const mod = await loadHandlerModule(options.projectRoot, handlerEntry(name));
    const handler = mod.handler as ProxyHandler;
    const timeoutMs = Math.min(timeoutSeconds * 1000, INTEGRATION_TIMEOUT_MS);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      return await Promise.race([handler(event, lambdaContext(`netintel-${name}`, timeoutMs)), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function authorize(route: Route, event: APIGatewayProxyEvent) {
    const mod = await loadHandlerModule(options.projectRoot, 'functions/authorizer/handler.ts');
    const authorizerEvent = {
      type: 'REQUEST',
      methodArn: `arn:aws:execute-api:local:000000000000:local/${STAGE_NAME}/${route.method}${route.path}`,
      resource: route.path,
      path: event.path,
      httpMethod: event.httpMethod,
      headers: event.headers,
      multiValueHeaders: event.multiValueHeaders,
      queryStringParameters: event.queryStringParameters,
      multiValueQueryStringParameters: event.multiValueQueryStringParameters,
      pathParameters: event.pathParameters,
      stageVariables: null,
      requestContext: event.requestContext,
    } as unknown as APIGatewayRequestAuthorizerEvent;
    return (mod.handler as AuthorizerHandler)(authorizerEvent);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    // Read (or refuse) the whole body before answering anything, so a keep-alive connection
    // never carries unread bytes into the next request.
    const body = await readBody(req);
    if (body === 'too_large') {
      res.setHeader('Connection', 'close');
      return sendGateway(res, 'REQUEST_TOO_LARGE');
    }
    // API Gateway and CloudFront refuse a missing, repeated or malformed Host before any route
    // runs; here it would otherwise fall back to the base address.
    const host = checkHostHeader(req.headersDistinct.host ?? [], req.httpVersion !== '1.0');
    if (!host.ok) return sendError(res, 'invalid_host', host.message);
    if (path === '/docs' || path.startsWith('/docs/')) return serveDocs(path, res);

    const publicRoute = PUBLIC_ROUTES.find((r) => r.path === path);
    const matched = matchPath(path);
    if (!publicRoute && !matched) return sendGateway(res, 'MISSING_AUTHENTICATION_TOKEN');

    const { headers, multiValueHeaders } = headerMaps(req);
    const query = queryMaps(url);
    const binary = isBinaryMediaType(req.headers['content-type'] ?? '');
    const sourceIp = clientIp(req, options.trustForwardedFor);
    const requestId = randomUUID();
    const resource = publicRoute?.path ?? matched!.routes[0]!.path;

    const event: APIGatewayProxyEvent = {
      resource,
      path,
      httpMethod: method,
      headers,
      multiValueHeaders,
      queryStringParameters: query.single,
      multiValueQueryStringParameters: query.multi,
      pathParameters: matched ? decodePathParameters(matched.pathParameters) : null,
      stageVariables: null,
      body: body.length === 0 ? null : binary ? body.toString('base64') : body.toString('utf8'),
      isBase64Encoded: binary && body.length > 0,
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        authorizer: null,
        protocol: 'HTTP/1.1',
        httpMethod: method,
        identity: { sourceIp, userAgent: headers['User-Agent'] ?? headers['user-agent'] ?? null } as never,
        path: `/${STAGE_NAME}${path}`,
        stage: STAGE_NAME,
        requestId,
        requestTimeEpoch: Date.now(),
        resourceId: 'local',
        resourcePath: resource,
      },
    };

    let name: string;
    let timeoutSeconds = 10;
    let allowed: GatewayRequestFacts = {};
    if (publicRoute) {
      if (method !== publicRoute.method) return sendJson405(res);
      name = publicRoute.name;
    } else {
      const route = matched!.routes.find((r) => r.method === method);
      if (!route) {
        const browserRoute = matched!.routes.find((r) => r.keyType === 'publishable');
        if (method === 'OPTIONS' && browserRoute) {
          send(res, 204, preflightHeaders(browserRoute.method), '');
          return 204;
        }
        return sendJson405(res);
      }
      try {
        const decision = await authorize(route, event);
        const statement = decision.policyDocument.Statement[0] as { Effect?: string } | undefined;
        const context = (decision.context ?? {}) as Record<string, string>;
        if (statement?.Effect !== 'Allow') {
          return sendGateway(res, 'ACCESS_DENIED', { authorizer: context, requestHeaders: headers });
        }
        event.requestContext.authorizer = { ...context, principalId: decision.principalId };
        // From here on API Gateway's own answers see the authorizer's context (CORS for its origin).
        allowed = { authorizer: context, requestHeaders: headers };
      } catch (err) {
        if ((err as Error).message === 'Unauthorized') {
          return sendGateway(res, 'UNAUTHORIZED', { requestHeaders: headers });
        }
        log(`authorizer failed: ${(err as Error).stack ?? err}`);
        return sendGateway(res, 'AUTHORIZER_FAILURE', { requestHeaders: headers });
      }
      name = route.name;
      timeoutSeconds = route.timeoutSeconds;
    }

    if (Buffer.byteLength(JSON.stringify(event)) > INVOKE_PAYLOAD_LIMIT) {
      // AWS: the synchronous invocation is refused (request payload over 6 MB).
      return sendGateway(res, 'REQUEST_TOO_LARGE', allowed);
    }
    let result: APIGatewayProxyResult | 'timeout';
    try {
      result = await invoke(name, timeoutSeconds, event);
    } catch (err) {
      log(`handler ${name} threw: ${(err as Error).stack ?? err}`);
      return sendGateway(res, 'DEFAULT_5XX', allowed);
    }
    if (result === 'timeout') return sendGateway(res, 'INTEGRATION_TIMEOUT', allowed);
    if (Buffer.byteLength(JSON.stringify(result)) > INVOKE_PAYLOAD_LIMIT) {
      log(`handler ${name} response over the 6 MB invocation limit`);
      return sendGateway(res, 'DEFAULT_5XX', allowed);
    }
    const responseHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) responseHeaders[k] = String(v);
    const payload = result.isBase64Encoded
      ? Buffer.from(result.body, 'base64')
      : Buffer.from(result.body ?? '', 'utf8');
    send(res, result.statusCode, responseHeaders, payload);
    return result.statusCode;
  }

  function sendJson405(res: ServerResponse): number {
    return sendError(res, 'method_not_allowed', 'This method is not allowed on this path.');
  }

  // Host is checked by handle() (checkHostHeader), so a missing one gets our 400, not Node's bare one.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    const started = performance.now();
    handle(req, res)
      .then((status) =>
        log(`${req.method} ${req.url} ${status} ${(performance.now() - started).toFixed(1)}ms`),
      )
      .catch((err: unknown) => {
        log(`gateway error: ${(err as Error).stack ?? err}`);
        if (!res.headersSent) sendGateway(res, 'DEFAULT_5XX');
        else res.destroy();
      });
  });
  server.keepAliveTimeout = 5000;
  // What Node's parser refuses (bad request line, headers over 16 KB) is answered as {error, message}.
  server.on('clientError', (err, socket) => answerClientError(err, socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1'}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
