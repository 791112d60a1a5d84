import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { traceInvocation } from '../aws/tracing.js';
import { logger } from '../observability.js';
import type { OpenRoute, SessionRoute } from '../route-types.js';
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

// The pipeline of the routes called without a key (docs/dashboard.md): the dashboard's session
// routes and the two sign-in steps. Shorter than the key routes' pipeline: nothing is billed or
// rate-counted per account, so there is no admission; the session authorizer's decision
// (session-authorizer/handler.ts) is the caller. Every answer is `Cache-Control: no-store`.
//
//   traceInvocation · injectLambdaContext · responseHeaders (X-Request-Id, Cache-Control: no-store: keys are shown once) · errorResponse
//   · httpRequest · route key · session (auth 'session') · domainErrors · input · run
//
// A route that answers a signed-out call (answersSignedOut: GET /v1/dashboard/session) gets no
// session instead of the 401 session_required refusal; its run says so in its answer.
// define-handler.ts defineHandler picks this pipeline by the route's auth kind.

/** What a route without a key is called with. */
export interface SessionCall {
  req: HttpRequest;
  now: Date;
  /** The service instance the call runs on (runtime/services.ts). */
  services: Services;
}

/** A session route's definition: its run gets the caller's session. */
export interface SessionHandlerSpec<I> {
  /** The route's entry of the route table (routes.ts routeByName). */
  route: SessionRoute & { answersSignedOut?: never };
  input: (req: HttpRequest) => I | Promise<I>;
  run: (input: I, call: SessionCall & { session: SessionPrincipal }) => Promise<Reply>;
}

/** A session route that answers a signed-out call: `session` is null when the call has none. */
export interface SessionProbeSpec<I> {
  route: SessionRoute & { answersSignedOut: true };
  input: (req: HttpRequest) => I | Promise<I>;
  run: (input: I, call: SessionCall & { session: SessionPrincipal | null }) => Promise<Reply>;
}

/** A route anyone may call (the sign-in steps): no session yet. */
export interface OpenHandlerSpec<I> {
  route: OpenRoute;
  input: (req: HttpRequest) => I | Promise<I>;
  run: (input: I, call: SessionCall) => Promise<Reply>;
}

type DashboardContext = RequestContext & { session?: SessionPrincipal };

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

/**
 * The handler of a session or open route on `services`: the chain above, then `input` and `run`
 * (with the session where the route has one; null for a signed-out probe).
 */
export function sessionHandler<I>(
  services: Services,
  spec: SessionHandlerSpec<I> | SessionProbeSpec<I> | OpenHandlerSpec<I>,
) {
  const route: SessionRoute | OpenRoute = spec.route;
  const run = spec.run as (
    input: I,
    call: SessionCall & { session?: SessionPrincipal | null },
  ) => Promise<Reply>;
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, DashboardContext>()
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(responseHeaders({ logger }))
    .use(errorResponse({ route: route.name, logger }))
    .use(httpRequest());
  chain.use({ name: 'routeKey', before: async () => logger.appendKeys({ route: route.name }) });
  if (route.auth === 'session') chain.use(session(route.answersSignedOut === true));
  return chain.use(domainErrors()).handler(async (_event, context) => {
    let value: I;
    try {
      value = await spec.input(stateOf(context, 'httpRequest'));
    } catch (err) {
      throw domainErrorAnswer(err) ?? err;
    }
    const call: SessionCall = { req: stateOf(context, 'httpRequest'), now: services.now(), services };
    const reply =
      route.auth === 'none'
        ? await run(value, call)
        : await run(value, { ...call, session: context.session ?? null });
    return toProxyResult(reply);
  });
}
