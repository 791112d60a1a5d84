import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { deflate, deflateSync, gzip, gzipSync } from 'node:zlib';
import type { Logger } from '@aws-lambda-powertools/logger';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import {
  DASHBOARD_PATH,
  DOCS_CSP,
  dashboardHeaders,
  SITE_ALIASES,
  SITE_CACHE_CONTROL,
  SITE_REDIRECTS,
  type SiteFile,
  siteFile,
} from '../../functions/api-reference/docs-site.js';
import { originOf } from '../../functions/lib/accounts/origins.js';
import { checkHostHeader } from '../../functions/lib/custom-hostnames/host-header.js';
import {
  type GatewayRequestFacts,
  gatewayResponse,
  renderGatewayBody,
  renderGatewayHeaders,
} from '../../functions/lib/gateway/gateway-responses.js';
import {
  isBinaryMediaType,
  MINIMUM_COMPRESSION_SIZE,
  type ResponseEncoding,
  responseEncoding,
  STAGE_NAME,
} from '../../functions/lib/gateway/gateway-settings.js';
import { preflightHeaders } from '../../functions/lib/http/cors.js';
import { ERROR_CODES, type ErrorCode } from '../../functions/lib/http/errors.js';
import { parseIp } from '../../functions/lib/ip/parse-ip.js';
import { maskAuthorization, maskKey, maskKeyParams } from '../../functions/lib/log/key-mask.js';
import { accessLogger } from '../../functions/lib/observability.js';
import type { Services } from '../../functions/lib/runtime/services.js';
import { handlerEntry, isKeyRoute, type Route } from '../../functions/routes.js';
import { answerClientError, answerConnect } from './client-error.js';
import { lambdaContext, stoppedAt, TIMED_OUT } from './lambda-context.js';
import { loadHandler } from './load-handler.js';
import { matchPath, requestTarget } from './match-path.js';

// Emulates API Gateway REST with Lambda proxy integration in front of the same handler modules the
// stack deploys: the v1 event shape, the REQUEST authorizer, gateway responses, binary media
// types, and the payload limits (10 MB request at the gateway, 6 MB per synchronous invocation).
// Every request gets an id, as API Gateway's `$context.requestId`: in the event, in X-Request-Id on
// every answer, and on the one access-log line it writes (docs/operations.md: Logs), where keys are masked.

export const GATEWAY_BODY_LIMIT = 10 * 1024 * 1024;
export const INVOKE_PAYLOAD_LIMIT = 6 * 1024 * 1024;
/** API Gateway's integration timeout for REST APIs. */
export const INTEGRATION_TIMEOUT_MS = 29_000;

type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
type AuthorizerHandler = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  projectRoot: string;
  /** The service instance every function of this gateway runs on (functions/lib/runtime/services.ts). */
  services: Services;
  port: number;
  host?: string;
  trustForwardedFor: boolean;
  /**
   * Replaces API Gateway's 29 s integration timeout, after which the caller gets 504
   * gateway_timeout. The test stacks raise it (with functionTimeoutMs): their races put 200 calls
   * on a 2-core machine busy with other test files, and what they test is admission, not latency.
   */
  integrationTimeoutMs?: number;
  /**
   * Replaces every function's own timeout (the route table's timeoutSeconds), at which its
   * invocation fails as Lambda stops it and the caller gets API Gateway's 5xx.
   */
  functionTimeoutMs?: number;
  /** The access log and the gateway's own failures; default Powertools' (observability.ts). */
  logger?: GatewayLogger;
  /** The dashboard under DASHBOARD_PATH; without it those paths are unknown routes. */
  dashboard?: DashboardSite;
}

/** The dashboard's files (web/dashboard/build.ts) and the origin its list files are uploaded to. */
export interface DashboardSite {
  /** Asked for on each request to the dashboard: the stack builds them once, on the first. */
  files(): Promise<readonly SiteFile[]>;
  /** The S3 emulator's origin (its presigned POSTs), allowed by the page's connect-src. */
  uploadOrigin: string;
}

/** What the gateway logs with: the Powertools logger (observability.ts), or a fake in tests. */
export type GatewayLogger = Pick<Logger, 'info' | 'error'>;

/** How one request was answered, for its access-log line. */
interface Answered {
  status: number;
  /** The `error` code of a non-2xx answer. */
  error?: string;
  route?: string;
  /** The origin a publishable key was refused for (403): the browser cannot read that body. */
  refusedOrigin?: string;
}

/** What the gateway needs of a route's function to invoke it as Lambda would. */
interface FunctionFacts {
  name: string;
  timeoutSeconds: number;
  memoryMb: number;
}

/** The id of each request being answered (its X-Request-Id), by response. */
const requestIds = new WeakMap<ServerResponse, string>();

export interface Gateway {
  url: string;
  server: Server;
  close(): Promise<void>;
}

function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string | Buffer,
): void {
  const requestId = requestIds.get(res);
  const hasId = Object.keys(headers).some((h) => h.toLowerCase() === 'x-request-id');
  if (requestId && !hasId) headers = { ...headers, 'X-Request-Id': requestId };
  // Encoded once: a 100-IP batch's 116 KB of JSON was otherwise measured and encoded three times.
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const { headers: out, coding } = compression(res.req.headers['accept-encoding'], headers, bytes);
  const write = (encoded: Buffer) => {
    res.writeHead(status, { ...out, 'Content-Length': String(encoded.length) });
    res.end(encoded);
  };
  if (coding === null) {
    write(bytes);
  } else if (bytes.length < ASYNC_COMPRESSION_SIZE) {
    write(coding === 'gzip' ? gzipSync(bytes, ZLIB_OPTIONS) : deflateSync(bytes, ZLIB_OPTIONS));
  } else {
    // A large body (a 100-IP batch is about 116 KB) is compressed on libuv's threads, as API Gateway
    // compresses outside the function: the server answers other requests meanwhile.
    (coding === 'gzip' ? gzipAsync(bytes, ZLIB_OPTIONS) : deflateAsync(bytes, ZLIB_OPTIONS)).then(
      write,
      (err: Error) => {
        res.destroy(err);
      },
    );
  }
}

const gzipAsync = promisify(gzip);
const deflateAsync = promisify(deflate);
/** Bodies from this size up are compressed off the event loop (about 0.1 ms of gzip at 16 KB). */
const ASYNC_COMPRESSION_SIZE = 16 * 1024;
/**
 * Level 3, not zlib's default 6: on a 100-IP batch 0.34 ms of CPU instead of 0.78 ms for 20% more
 * bytes (15.9 KB, not 13.2 KB), which on a local loopback costs nothing while the CPU is shared
 * with the clients and every other request.
 */
const ZLIB_OPTIONS = { level: 3 };

/**
 * API Gateway's payload compression (the REST API's minimumCompressionSize, infra/constructs/api.ts):
 * a body of at least MINIMUM_COMPRESSION_SIZE bytes that the handler did not encode is sent with
 * the request's preferred coding when that is gzip or deflate (responseEncoding). Such a body's
 * representation depends on Accept-Encoding, so it carries `Vary: Accept-Encoding` either way.
 */
function compression(
  acceptEncoding: string | undefined,
  headers: Record<string, string>,
  body: Buffer,
): { headers: Record<string, string>; coding: ResponseEncoding | null } {
  const names = Object.keys(headers).map((h) => h.toLowerCase());
  if (body.length < MINIMUM_COMPRESSION_SIZE || names.includes('content-encoding')) {
    return { headers, coding: null };
  }
  const varyName = Object.keys(headers).find((h) => h.toLowerCase() === 'vary');
  const vary = varyName ? headers[varyName]! : '';
  const out: Record<string, string> = { ...headers };
  if (varyName) delete out[varyName];
  out.Vary = vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding';
  const coding = responseEncoding(acceptEncoding);
  if (coding !== null) out['Content-Encoding'] = coding;
  return { headers: out, coding };
}

/**
 * Whether an invocation's event or result is over Lambda's 6 MB payload limit, as JSON. Its body is
 * nearly all of it, and a body's JSON takes at most 6 bytes for each of its UTF-8 bytes (a control
 * character becomes \u00XX) and a UTF-8 byte at most 3 for each UTF-16 unit: a body under a
 * eighteenth of the limit is under it without serialising the body a second time (1.5 ms of a
 * 100-IP batch's answer).
 */
function overInvokeLimit(payload: { body: string | null }): boolean {
  const rest = Buffer.byteLength(JSON.stringify({ ...payload, body: '' }));
  const body = payload.body ?? '';
  if (rest + body.length * 18 <= INVOKE_PAYLOAD_LIMIT) return false;
  return Buffer.byteLength(JSON.stringify(payload)) > INVOKE_PAYLOAD_LIMIT;
}

/**
 * The address a client on this machine reaches a server listening on `host`:`port` at: every
 * interface (0.0.0.0, ::) is reached on the loopback, and an IPv6 address goes in brackets.
 */
export function localUrl(host: string | undefined, port: number): string {
  if (!host || host === '0.0.0.0' || host === '::') return `http://127.0.0.1:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Answers with one of our error codes as `{error, message}`. */
function sendError(
  res: ServerResponse,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Answered {
  const status = ERROR_CODES[code];
  send(
    res,
    status,
    { 'Content-Type': 'application/json', ...headers },
    JSON.stringify({ error: code, message }),
  );
  return { status, error: code };
}

/**
 * Answers as API Gateway's gateway response of `type`: its status (our override or the type's own),
 * body and header mappings, evaluated against the authorizer context and the request's headers.
 */
function sendGateway(res: ServerResponse, type: string, facts: GatewayRequestFacts = {}): Answered {
  const def = gatewayResponse(type);
  const withId = { ...facts, requestId: requestIds.get(res) };
  const body = renderGatewayBody(def, facts.authorizer);
  send(res, def.status, { 'Content-Type': 'application/json', ...renderGatewayHeaders(def, withId) }, body);
  return { status: def.status, error: errorCodeOf(body) };
}

/** The `error` of an `{error, message}` body, if it is one. */
function errorCodeOf(body: string | Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString());
    const error = (parsed as { error?: unknown } | null)?.error;
    return typeof error === 'string' ? error : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Allow header of a path (RFC 9110, 405): its routes' methods, and OPTIONS where a browser route
 * answers preflights, as the stack's 405 mock says it (infra/constructs/api.ts).
 */
function allowHeader(routes: readonly Pick<Route, 'method' | 'auth'>[]): string {
  const methods: string[] = routes.map((r) => r.method);
  if (routes.some((r) => r.auth === 'publishable')) methods.push('OPTIONS');
  return [...new Set(methods)].join(', ');
}

/** The key a request presented, masked for the log: Authorization first, then X-Api-Key. */
function presentedKey(headers: IncomingMessage['headers']): string | undefined {
  const authorization = headers.authorization;
  if (authorization) return maskAuthorization(authorization);
  const apiKey = headers['x-api-key'];
  const value = Array.isArray(apiKey) ? apiKey.at(-1) : apiKey;
  return value === undefined ? undefined : maskKey(value);
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

/**
 * Name/value pairs as API Gateway's two maps: the last value of each name, and all of them. Gathered
 * in Maps, so a name such as `__proto__` or `constructor` is a name like any other (a plain object's
 * `multi[name] ?? []` was its prototype's member, and the request a 500).
 */
function pairMaps(pairs: Iterable<readonly [string, string]>) {
  const single = new Map<string, string>();
  const multi = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    single.set(name, value);
    multi.set(name, [...(multi.get(name) ?? []), value]);
  }
  return { single: Object.fromEntries(single), multi: Object.fromEntries(multi), any: single.size > 0 };
}

function headerMaps(req: IncomingMessage) {
  const pairs: [string, string][] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) pairs.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
  // API Gateway keeps the last value in `headers`.
  const { single, multi } = pairMaps(pairs);
  return { headers: single, multiValueHeaders: multi };
}

function queryMaps(url: URL) {
  const { single, multi, any } = pairMaps(url.searchParams);
  return { single: any ? single : null, multi: any ? multi : null };
}

/**
 * The caller's address, as API Gateway's sourceIp: always an IP address. With TRUST_FORWARDED_FOR
 * the first X-Forwarded-For entry stands in for it when it is one as the lookups accept it
 * (parseIp: Node's isIP also takes a zone id, `fe80::1%eth0`, which no lookup does); anything else
 * there is ignored.
 */
function clientIp(req: IncomingMessage, trustForwardedFor: boolean): string {
  if (trustForwardedFor) {
    const xff = req.headers['x-forwarded-for'];
    const first = (Array.isArray(xff) ? xff[0] : xff)?.split(',')[0]?.trim();
    if (first && parseIp(first) !== null) return first;
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

/** The REQUEST authorizer's event for a call of `route`, as API Gateway builds it. */
function authorizerEvent(
  route: { method: string; path: string },
  event: APIGatewayProxyEvent,
): APIGatewayRequestAuthorizerEvent {
  return {
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
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const logger = options.logger ?? accessLogger;

  /**
   * The site (CloudFront and the docs bucket in AWS): `/` redirects; /docs, its files, the favicon;
   * the dashboard's page and files, with the dashboard's headers.
   */
  async function serveSite(path: string, res: ServerResponse): Promise<Answered | undefined> {
    const to = SITE_REDIRECTS[path];
    if (to) {
      send(res, 302, { Location: to, 'Cache-Control': SITE_CACHE_CONTROL }, '');
      return { status: 302 };
    }
    const target = SITE_ALIASES[path] ?? path;
    if (options.dashboard && target.startsWith(`${DASHBOARD_PATH}/`)) {
      const file = (await options.dashboard.files()).find((f) => f.path === target);
      if (!file) return undefined;
      send(res, 200, dashboardHeaders(file, options.dashboard.uploadOrigin), file.body());
      return { status: 200 };
    }
    const file = siteFile(path);
    if (!file) return undefined;
    const headers = {
      'Content-Type': file.contentType,
      'Cache-Control': SITE_CACHE_CONTROL,
      'Content-Security-Policy': DOCS_CSP,
      'X-Content-Type-Options': 'nosniff',
    };
    send(res, 200, headers, file.body());
    return { status: 200 };
  }

  /**
   * Runs a route's function as API Gateway invokes it, stopped as AWS stops it: at the function's
   * timeout Lambda ends the invocation (a failed invocation: API Gateway's 5xx), at 29 s API
   * Gateway stops waiting (504), whichever comes first. The handler's context counts down to the
   * function's timeout. A stopped handler's late result is ignored (Lambda would have frozen it).
   */
  async function invoke(
    fn: FunctionFacts,
    event: APIGatewayProxyEvent,
  ): Promise<APIGatewayProxyResult | 'function_timeout' | 'integration_timeout'> {
    const handler = await loadHandler<ProxyHandler>(
      options.projectRoot,
      handlerEntry(fn.name),
      options.services,
    );
    const functionMs = options.functionTimeoutMs ?? fn.timeoutSeconds * 1000;
    const integrationMs = options.integrationTimeoutMs ?? INTEGRATION_TIMEOUT_MS;
    const context = lambdaContext(`netintel-${fn.name}`, fn.memoryMb, functionMs);
    const result = await stoppedAt(Math.min(functionMs, integrationMs), handler(event, context));
    if (result !== TIMED_OUT) return result;
    return functionMs < integrationMs ? 'function_timeout' : 'integration_timeout';
  }

  /**
   * A route's authorizer as API Gateway runs it: the key authorizer for a key route, the session
   * authorizer (always an Allow) for a dashboard session route.
   */
  async function authorize(route: Route, event: APIGatewayProxyEvent) {
    const entry = route.auth === 'session' ? 'session-authorizer' : 'authorizer';
    const handler = await loadHandler<AuthorizerHandler>(
      options.projectRoot,
      handlerEntry(entry),
      options.services,
    );
    return handler(authorizerEvent(route, event));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<Answered> {
    // Routed on the path as sent (requestTarget); the query alone is parsed as a URL's.
    const target = requestTarget(req.url ?? '/');
    const path = target.path;
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
    const site = method === 'GET' || method === 'HEAD' ? await serveSite(path, res) : undefined;
    if (site !== undefined) return site;

    const matched = matchPath(path);
    if (!matched) return sendGateway(res, 'MISSING_AUTHENTICATION_TOKEN');

    const { headers, multiValueHeaders } = headerMaps(req);
    const query = queryMaps(new URL(`?${target.query}`, 'http://local/'));
    const binary = isBinaryMediaType(req.headers['content-type'] ?? '');
    const sourceIp = clientIp(req, options.trustForwardedFor);
    const resource = matched.routes[0]!.path;

    const event: APIGatewayProxyEvent = {
      resource,
      path,
      httpMethod: method,
      headers,
      multiValueHeaders,
      queryStringParameters: query.single,
      multiValueQueryStringParameters: query.multi,
      pathParameters: decodePathParameters(matched.pathParameters),
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

    // As API Gateway: the method of the resource, or a preflight of a browser route, or 405.
    const route = matched.routes.find((r) => r.method === method);
    if (!route) {
      const browserRoute = matched.routes.find((r) => r.auth === 'publishable');
      if (method === 'OPTIONS' && browserRoute) {
        send(res, 204, preflightHeaders(browserRoute.method), '');
        return { status: 204 };
      }
      return sendJson405(res, allowHeader(matched.routes));
    }
    // Then the route's authorizer, by its auth kind: the key authorizer, the session authorizer, none.
    let allowed: GatewayRequestFacts = {};
    if (route.auth === 'session') {
      try {
        const decision = await authorize(route, event);
        event.requestContext.authorizer = { ...decision.context, principalId: decision.principalId };
      } catch (err) {
        logger.error('session authorizer failed', { correlation_id: requestId, error: err as Error });
        return sendGateway(res, 'AUTHORIZER_FAILURE', { requestHeaders: headers });
      }
    } else if (isKeyRoute(route)) {
      try {
        const decision = await authorize(route, event);
        const statement = decision.policyDocument.Statement[0] as { Effect?: string } | undefined;
        const context = (decision.context ?? {}) as Record<string, string>;
        if (statement?.Effect !== 'Allow') {
          const answered = sendGateway(res, 'ACCESS_DENIED', {
            authorizer: context,
            requestHeaders: headers,
          });
          return { ...answered, route: route.name, refusedOrigin: refusedOriginOf(context, req) };
        }
        event.requestContext.authorizer = { ...context, principalId: decision.principalId };
        // From here on API Gateway's own answers see the authorizer's context (CORS for its origin).
        allowed = { authorizer: context, requestHeaders: headers };
      } catch (err) {
        if ((err as Error).message === 'Unauthorized') {
          return { ...sendGateway(res, 'UNAUTHORIZED', { requestHeaders: headers }), route: route.name };
        }
        logger.error('authorizer failed', { correlation_id: requestId, error: err as Error });
        return sendGateway(res, 'AUTHORIZER_FAILURE', { requestHeaders: headers });
      }
    }
    const answered = await invokeRoute(res, route, event, allowed, requestId);
    return { ...answered, route: route.name };
  }

  /**
   * The origin a publishable key was refused for: the authorizer's, else what the request sent
   * (Origin, or Referer's origin), so the log says what the browser could not read.
   */
  function refusedOriginOf(context: Record<string, string>, req: IncomingMessage): string | undefined {
    if (context.errorCode !== 'origin_not_allowed') return undefined;
    if (context.refusedOrigin) return context.refusedOrigin;
    const origin = req.headersDistinct.origin?.at(-1);
    return origin ?? originOf(req.headersDistinct.referer?.at(-1)) ?? '(none)';
  }

  async function invokeRoute(
    res: ServerResponse,
    fn: FunctionFacts,
    event: APIGatewayProxyEvent,
    allowed: GatewayRequestFacts,
    requestId: string,
  ): Promise<Answered> {
    const name = fn.name;
    if (overInvokeLimit(event)) {
      // AWS: the synchronous invocation is refused (request payload over 6 MB).
      return sendGateway(res, 'REQUEST_TOO_LARGE', allowed);
    }
    let result: Awaited<ReturnType<typeof invoke>>;
    try {
      result = await invoke(fn, event);
    } catch (err) {
      logger.error('handler threw', { correlation_id: requestId, route: name, error: err as Error });
      return sendGateway(res, 'DEFAULT_5XX', allowed);
    }
    if (result === 'integration_timeout') return sendGateway(res, 'INTEGRATION_TIMEOUT', allowed);
    if (result === 'function_timeout') {
      // Lambda's "Task timed out": a failed invocation, answered as one that threw.
      logger.error('handler timed out', { correlation_id: requestId, route: name });
      return sendGateway(res, 'DEFAULT_5XX', allowed);
    }
    if (overInvokeLimit(result)) {
      logger.error('handler response over the 6 MB invocation limit', {
        correlation_id: requestId,
        route: name,
      });
      return sendGateway(res, 'DEFAULT_5XX', allowed);
    }
    const responseHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) responseHeaders[k] = String(v);
    const payload = result.isBase64Encoded
      ? Buffer.from(result.body, 'base64')
      : Buffer.from(result.body ?? '', 'utf8');
    send(res, result.statusCode, responseHeaders, payload);
    const error = result.statusCode >= 400 && payload.length < 64 * 1024 ? errorCodeOf(payload) : undefined;
    return { status: result.statusCode, ...(error ? { error } : {}) };
  }

  function sendJson405(res: ServerResponse, allow: string): Answered {
    // no-store as on every answer (the API Gateway method's mock response says the same).
    return sendError(res, 'method_not_allowed', `This path takes ${allow} only.`, {
      Allow: allow,
      'Cache-Control': 'no-store',
    });
  }

  /**
   * One line per request, as Powertools JSON (or readable with `npm start` in a terminal): method,
   * target with `?key=` masked, status, time, route, the key masked, the error code of a refusal and
   * the origin a 403 refused, under the request's id.
   */
  function accessLog(req: IncomingMessage, requestId: string, answered: Answered, started: number): void {
    const durationMs = Number((performance.now() - started).toFixed(1));
    const key = presentedKey(req.headers);
    const fields = {
      correlation_id: requestId,
      status: answered.status,
      durationMs,
      ...(answered.route ? { route: answered.route } : {}),
      ...(key ? { key } : {}),
      ...(answered.error ? { error: answered.error } : {}),
      ...(answered.refusedOrigin ? { refusedOrigin: answered.refusedOrigin } : {}),
    };
    const line = `${req.method} ${maskKeyParams(req.url ?? '/')} ${answered.status}`;
    if (answered.status >= 500) logger.error(line, fields);
    else logger.info(line, fields);
  }

  /** Answers one request and writes its access-log line. */
  function answer(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const requestId = randomUUID();
    requestIds.set(res, requestId);
    handle(req, res, requestId)
      .then((answered) => accessLog(req, requestId, answered, started))
      .catch((err: unknown) => {
        if (!req.complete && req.socket.destroyed) {
          // The client went away (or Node's request timeout answered 408 and closed) before the
          // request had arrived: nobody to answer, and no failure of ours.
          const durationMs = Number((performance.now() - started).toFixed(1));
          logger.info(`${req.method} ${maskKeyParams(req.url ?? '/')} closed before the request arrived`, {
            correlation_id: requestId,
            durationMs,
          });
          return;
        }
        logger.error('gateway error', { correlation_id: requestId, error: err as Error });
        if (!res.headersSent) accessLog(req, requestId, sendGateway(res, 'DEFAULT_5XX'), started);
        else res.destroy();
      });
  }

  // Host is checked by handle() (checkHostHeader), so a missing one gets our 400, not Node's bare one.
  const server = createServer({ requireHostHeader: false }, answer);
  // An Expect header other than 100-continue: Node's own answer is a bare 417. An expectation the
  // server does not support may be ignored (HTTP semantics allow it), so the request is answered
  // as if it had none, its errors in the API's shape like any other.
  server.on('checkExpectation', answer);
  server.keepAliveTimeout = 5000;
  // What Node's parser refuses (bad request line, headers over 16 KB) is answered as {error, message}.
  server.on('clientError', (err, socket) => answerClientError(err, socket));
  server.on('connect', (_req, socket) => answerConnect(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: localUrl(options.host, port),
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
