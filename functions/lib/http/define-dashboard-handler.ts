import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { traceInvocation } from '../aws/tracing.js';
import { logger } from '../observability.js';
import type { DashboardRoute } from '../route-types.js';
import { type LambdaEntry, lambdaEntry } from '../runtime/lambda-entry.js';
import type { Services } from '../runtime/services.js';
import {
  type SessionPrincipal,
  SessionPrincipalSchema,
  SessionRefusalSchema,
} from './dashboard-principal.js';
import { HttpError } from './errors.js';
import { domainErrorAnswer, domainErrors } from './middleware/domain-errors.js';
import { errorResponse } from './middleware/error-response.js';
import { httpRequest } from './middleware/http-request.js';
import { type Middleware, type RequestContext, stateOf } from './middleware/request-state.js';
import { responseHeaders } from './middleware/response-headers.js';
import { type Reply, toProxyResult } from './reply.js';
import type { HttpRequest } from './request.js';

// The dashboard's route handlers (docs/dashboard.md). Shorter than the API's pipeline: nothing is
// billed or rate-counted per account, so there is no admission; the session authorizer's decision
// (session-authorizer/handler.ts) is the caller. Every answer is `Cache-Control: no-store`.
//
//   traceInvocation · injectLambdaContext · responseHeaders (X-Request-Id) · noStore · errorResponse
//   · httpRequest · session (routes with auth 'session') · dashboardErrors · input · run
//
// A route that answers a signed-out call (answersSignedOut: GET /v1/dashboard/session) gets no
// session instead of the 401 session_required refusal; its run says so in its answer.

export interface DashboardCall {
  req: HttpRequest;
  now: Date;
  /** The service instance the call runs on (runtime/services.ts). */
  services: Services;
}

export interface DashboardSpec<I> {
  /** The route's entry of the route table (routes.ts dashboardRouteByName). */
  route: DashboardRoute;
  input: (req: HttpRequest) => I | Promise<I>;
  run: (input: I, call: DashboardCall & { session: SessionPrincipal }) => Promise<Reply>;
}

export interface SessionProbeSpec<I> {
  route: DashboardRoute;
  input: (req: HttpRequest) => I | Promise<I>;
  /** `session` is null when the call has none (no cookie, or its session ended). */
  run: (input: I, call: DashboardCall & { session: SessionPrincipal | null }) => Promise<Reply>;
}

export interface PublicDashboardSpec<I> {
  route: DashboardRoute;
  input: (req: HttpRequest) => I | Promise<I>;
  run: (input: I, call: DashboardCall) => Promise<Reply>;
}

type DashboardContext = RequestContext & { session?: SessionPrincipal };

/** Browsers and proxies keep nothing of the dashboard's answers (keys are shown once). */
function noStore(): Middleware {
  const add = (request: { response?: APIGatewayProxyResult | null }) => {
    if (request.response)
      request.response.headers = { ...request.response.headers, 'Cache-Control': 'no-store' };
  };
  return { name: 'noStore', after: async (r) => add(r), onError: async (r) => add(r) };
}

/**
 * The authorizer's session, or its refusal (401 session_required, 403 csrf_token_invalid); with
 * `answersSignedOut`, no session is not refused: the context is left without one.
 */
function session(answersSignedOut: boolean): Middleware {
  return {
    name: 'session',
    before: async (request) => {
      const context = request.event.requestContext?.authorizer ?? {};
      const refusal = SessionRefusalSchema.safeParse(context);
      if (refusal.success && answersSignedOut && refusal.data.errorCode === 'session_required') return;
      if (refusal.success) throw new HttpError(refusal.data.errorCode, refusal.data.message);
      const parsed = SessionPrincipalSchema.safeParse(context);
      if (!parsed.success) throw new HttpError('session_required', 'Sign in to the dashboard first.');
      (request.context as DashboardContext).session = parsed.data;
      logger.appendKeys({ accountId: parsed.data.accountId });
    },
  };
}

type Entry = LambdaEntry<APIGatewayProxyEvent, APIGatewayProxyResult>;

function build<I>(
  route: DashboardRoute,
  input: (req: HttpRequest) => I | Promise<I>,
  run: (input: I, context: DashboardContext, services: Services) => Promise<Reply>,
): Entry {
  return lambdaEntry((services) => chainOn(services, route, input, run));
}

function chainOn<I>(
  services: Services,
  route: DashboardRoute,
  input: (req: HttpRequest) => I | Promise<I>,
  run: (input: I, context: DashboardContext, services: Services) => Promise<Reply>,
) {
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, DashboardContext>()
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(responseHeaders({ logger }))
    .use(noStore())
    .use(errorResponse({ route: route.name, logger }))
    .use(httpRequest());
  chain.use({ name: 'routeKey', before: async () => logger.appendKeys({ route: route.name }) });
  if (route.auth === 'session') chain.use(session(route.answersSignedOut === true));
  return chain.use(domainErrors()).handler(async (_event, context) => {
    let value: I;
    try {
      value = await input(stateOf(context, 'httpRequest'));
    } catch (err) {
      throw domainErrorAnswer(err) ?? err;
    }
    return toProxyResult(await run(value, context, services));
  });
}

/** A dashboard route behind the session authorizer. */
export function defineDashboardHandler<I>(spec: DashboardSpec<I>): Entry {
  if (spec.route.answersSignedOut) {
    throw new Error(`${spec.route.name} answers signed-out calls: define it with defineSessionProbeHandler`);
  }
  return build(spec.route, spec.input, (input, context, services) =>
    spec.run(input, {
      req: stateOf(context, 'httpRequest'),
      now: services.now(),
      services,
      session: context.session as SessionPrincipal,
    }),
  );
}

/** A session route that answers a signed-out call too (answersSignedOut in the route table). */
export function defineSessionProbeHandler<I>(spec: SessionProbeSpec<I>): Entry {
  const route = spec.route;
  if (route.auth !== 'session' || !route.answersSignedOut) {
    throw new Error(`${route.name} is not a session route that answers signed-out calls`);
  }
  return build(spec.route, spec.input, (input, context, services) =>
    spec.run(input, {
      req: stateOf(context, 'httpRequest'),
      now: services.now(),
      services,
      session: context.session ?? null,
    }),
  );
}

/** One of the two sign-in routes, which have no session yet. */
export function definePublicDashboardHandler<I>(spec: PublicDashboardSpec<I>): Entry {
  return build(spec.route, spec.input, (input, context, services) =>
    spec.run(input, { req: stateOf(context, 'httpRequest'), now: services.now(), services }),
  );
}
