import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import fc from 'fast-check';
import { ERROR_CODES, type ErrorCode, HttpError } from '../../../../../functions/lib/http/errors.js';
import type {
  PipelineLogger,
  PipelineMetrics,
} from '../../../../../functions/lib/http/middleware/pipeline-deps.js';
import type {
  Middleware,
  PipelineRequest,
  RequestState,
} from '../../../../../functions/lib/http/middleware/request-state.js';
import type { Principal } from '../../../../../functions/lib/http/principal.js';
import type { HttpRequest } from '../../../../../functions/lib/http/request.js';
import { testServices } from '../../../../support/services.js';

// Requests, fakes and arbitraries shared by the middleware tests: data, not mocks of our code.

/** 20 s into a minute of November 2026. */
export const NOW = new Date('2026-11-20T10:15:20.000Z');
export const fixedClock = { now: () => NOW };

/** A service instance of the tests' own, on the fixed clock (nothing of it is built unless used). */
export const SERVICES = testServices({}, fixedClock);

export const PRINCIPAL: Principal = {
  accountId: 'acct_1',
  keyId: 'key_1',
  keyType: 'secret',
  plan: 'starter',
  perMinute: 60,
  monthlyCap: 100,
  includesSecurity: false,
  allowedOrigin: '',
};

export const HTTP_REQUEST: HttpRequest = {
  method: 'GET',
  path: '/v1/lookup/1.1.1.1',
  pathParameters: {},
  query: {},
  headers: {},
  repeatedHeaders: [],
  repeatedQuery: [],
  body: null,
  sourceIp: '203.0.113.9',
  requestId: 'req-1',
};

export function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'netintel-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:netintel-test',
    memoryLimitInMB: '256',
    awsRequestId: 'req-1',
    logGroupName: '/aws/lambda/netintel-test',
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export function apiEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    httpMethod: 'GET',
    path: '/v1/lookup/1.1.1.1',
    resource: '/v1/lookup/{ip}',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-1',
      identity: { sourceIp: '203.0.113.9' },
      authorizer: {},
    } as unknown as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

/** A middy request as the pipeline hands it to a middleware. */
export function requestOf<I = unknown, R = unknown>(
  state: RequestState<I, R> = {},
  event: APIGatewayProxyEvent = apiEvent(),
): PipelineRequest<I, R> {
  return {
    event,
    context: { ...lambdaContext(), ...state },
    response: undefined,
    error: undefined,
    internal: {},
  };
}

/** Runs one phase of a middleware on a request. */
export async function phase<I, R>(
  middleware: Middleware<I, R>,
  name: 'before' | 'after' | 'onError',
  request: PipelineRequest<I, R>,
): Promise<void> {
  const fn = middleware[name];
  if (!fn) throw new Error(`middleware has no ${name}`);
  await fn(request);
}

export class FakeLogger implements PipelineLogger {
  readonly errors: { message: string; extra: unknown }[] = [];
  readonly keys: Record<string, unknown>[] = [];

  error(message: unknown, ...extra: unknown[]): void {
    this.errors.push({ message: String(message), extra: extra[0] });
  }

  appendKeys(keys: Record<string, unknown>): void {
    this.keys.push(keys);
  }
}

export class FakeMetrics implements PipelineMetrics {
  readonly events: { accountId: string; meter: string; units: number }[] = [];
  noticesFailed = 0;

  usageEvents(accountId: string, meter: string, units: number): void {
    this.events.push({ accountId, meter, units });
  }

  noticeFailed(): void {
    this.noticesFailed += 1;
  }
}

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

/** Any of the API's typed errors, with any message and extra headers. */
export const httpErrorArb: fc.Arbitrary<HttpError> = fc
  .tuple(fc.constantFrom(...CODES), fc.string(), fc.dictionary(fc.string({ minLength: 1 }), fc.string()))
  .map(([code, message, headers]) => new HttpError(code, message, headers));

/** Anything else a dependency or a route may throw. */
export const untypedErrorArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.string().map((m) => new Error(m)),
  fc.string().map((m) => new TypeError(m)),
  fc.string(),
  fc.constant(undefined),
  fc.constant(null),
  fc.object(),
);

export const anyErrorArb: fc.Arbitrary<unknown> = fc.oneof(httpErrorArb, untypedErrorArb);

/** Principals as the authorizer may establish them. */
export const principalArb: fc.Arbitrary<Principal> = fc.record({
  accountId: fc.string({ minLength: 1 }),
  keyId: fc.string({ minLength: 1 }),
  keyType: fc.constantFrom('publishable' as const, 'secret' as const),
  plan: fc.string({ minLength: 1 }),
  perMinute: fc.nat(10_000),
  monthlyCap: fc.nat(1_000_000),
  includesSecurity: fc.boolean(),
  allowedOrigin: fc.oneof(fc.constant(''), fc.webUrl()),
  hostStatus: fc.option(fc.constantFrom('active' as const, 'inactive' as const), { nil: undefined }),
});

/** Whether a thrown value is one of the API's typed errors (the only kind a middleware may throw). */
export function isTyped(err: unknown): err is HttpError {
  return err instanceof HttpError;
}

/** What a phase threw, or undefined. */
export async function thrownBy(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
    return undefined;
  } catch (err) {
    return err;
  }
}

/** An event whose authorizer context is `authorizer` (anything, for the fuzz tests). */
export function withAuthorizer(authorizer: unknown): APIGatewayProxyEvent {
  return apiEvent({
    requestContext: { requestId: 'r', authorizer } as unknown as APIGatewayProxyEvent['requestContext'],
  });
}
