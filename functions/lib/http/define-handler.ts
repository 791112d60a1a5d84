import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  cachedAccountStore,
  noticeLedger,
  quotaLeases,
  usageCounter,
  usageNotifier,
} from '../aws/services.js';
import { traceAnnotations, traceInvocation } from '../aws/tracing.js';
import { SentNotices } from '../limits/notice-delivery.js';
import { USAGE_NOTICE_FAILED_METRIC } from '../limits/notifier.js';
import { logger } from '../observability.js';
import { isKeyRoute, type Route } from '../route-types.js';
import { type LambdaEntry, lambdaEntry } from '../runtime/lambda-entry.js';
import { metrics, part, type Services } from '../runtime/services.js';
import type { HandlerSpec } from './handler-spec.js';
import { admission } from './middleware/admission.js';
import { billing } from './middleware/billing.js';
import { cors } from './middleware/cors.js';
import { domainErrors } from './middleware/domain-errors.js';
import { errorResponse } from './middleware/error-response.js';
import { hostnameBinding } from './middleware/hostname-binding.js';
import { httpRequest } from './middleware/http-request.js';
import { jobReservation } from './middleware/job-reservation.js';
import type { PipelineDeps } from './middleware/pipeline-deps.js';
import { principal } from './middleware/principal.js';
import { refundOnFailure } from './middleware/refund-on-failure.js';
import { type RequestContext, stateOf } from './middleware/request-state.js';
import { responseHeaders } from './middleware/response-headers.js';
import { traceAnnotations as annotateTrace } from './middleware/trace-annotations.js';
import { usageEvents } from './middleware/usage-events.js';
import { usageNotices } from './middleware/usage-notices.js';
import { validateInput } from './middleware/validate-input.js';
import { toProxyResult } from './reply.js';
import {
  type OpenHandlerSpec,
  type SessionHandlerSpec,
  type SessionProbeSpec,
  sessionHandler,
} from './session-pipeline.js';
import { addUsageEvent } from './usage-event-metric.js';

export type { CallContext, HandlerSpec, Reservation, ReserveContext } from './handler-spec.js';
export { billedUnits } from './middleware/billing.js';
export type {
  OpenHandlerSpec,
  SessionCall,
  SessionHandlerSpec,
  SessionProbeSpec,
} from './session-pipeline.js';

/**
 * Builds route handlers on these dependencies. Each route's Lambda handler is one middy chain
 * (before: top to bottom; after and onError: bottom to top):
 *
 *   traceInvocation      the invocation's X-Ray subsegment, where tracing is on (aws/tracing.ts)
 *   traceAnnotations     route, account and error code on that subsegment
 *   injectLambdaContext  Lambda context and route/account keys on every log line
 *   responseHeaders      X-Request-Id (also on every log line) and X-RateLimit-*, on answers and errors
 *   cors                 CORS for the key's allowed browser origin, on answers and errors
 *   errorResponse        any failure -> {error, message}; internals never reach the body
 *   httpRequest          the event, normalised
 *   principal            the authorizer's caller, or 401 (with the authorizer's reason)
 *   hostnameBinding      421 on an inactive custom hostname (rule 7), nothing counted
 *   refundOnFailure      units back after a 5xx that followed admission
 *   usageEvents          usage events per billed unit, after success
 *   validateInput        the route's input, or its 4xx (still counted against the minute)
 *   billing              units by the route's billing rule, refused whole over the cap
 *   jobReservation       the route's reserve/release hook, when it has one
 *   admission            rate limit and monthly cap in one counter write, or 429
 *   usageNotices         75/90/100% notices of the month reached
 *   domainErrors         the domain's own errors as the API's (its onError runs first)
 *   run                  the route
 */
export function defineHandlerWith(deps: PipelineDeps) {
  return <I, R = undefined>(spec: HandlerSpec<I, R>) => {
    const route = spec.route;
    const counter = deps.counter;
    const meter = route.billing.per === 'none' ? null : route.billing.meter;

    const run = async (_event: APIGatewayProxyEvent, context: RequestContext<I, R>) => {
      const reservation = context.reservation;
      if (reservation && 'replay' in reservation) return toProxyResult(reservation.replay);
      const admitted = context.admitted;
      const reply = await spec.run(context.input as I, {
        principal: stateOf(context, 'principal'),
        req: stateOf(context, 'httpRequest'),
        now: deps.clock.now(),
        services: deps.services,
        billed: { units: admitted?.units ?? 0, month: admitted?.month ?? '' },
        // Without a reserve hook R is undefined, and so is this.
        reserved: (reservation && 'state' in reservation ? reservation.state : undefined) as R,
        lambda: context,
      });
      return toProxyResult(reply);
    };

    const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, RequestContext<I, R>>().use(
      traceInvocation(),
    );
    if (deps.annotations) chain.use(annotateTrace({ route: route.name, annotations: deps.annotations }));
    chain
      .use(injectLambdaContext(deps.logger, { resetKeys: true }))
      .use(responseHeaders({ logger: deps.logger }))
      .use(cors(route.auth))
      .use(errorResponse({ route: route.name, logger: deps.logger }))
      .use(httpRequest())
      .use(principal({ route: route.name, logger: deps.logger }))
      .use(hostnameBinding())
      .use(refundOnFailure({ meter, counter, logger: deps.logger }))
      .use(usageEvents({ meter, metrics: deps.metrics }))
      .use(validateInput<I, R>(spec.input, deps.services))
      .use(billing<I, R>({ billing: route.billing, clock: deps.clock }));
    if (spec.reserve)
      chain.use(jobReservation<I, R>(spec.reserve, { logger: deps.logger, services: deps.services }));
    return chain
      .use(
        admission<I, R>({
          meter,
          counter,
          leases: deps.leases,
          clock: deps.clock,
          logger: deps.logger,
        }),
      )
      .use(
        usageNotices({
          notices: deps.notices,
          clock: deps.clock,
          logger: deps.logger,
          metrics: deps.metrics,
        }),
      )
      .use(domainErrors())
      .handler(run);
  };
}

/** Notices this instance knows went out (no ledger write for them on later calls). */
const sentNotices = /* @__PURE__ */ part(() => new SentNotices());

/** The pipeline's dependencies on a service instance. */
export function pipelineDeps(services: Services): PipelineDeps {
  return {
    services,
    counter: usageCounter(services),
    leases: quotaLeases(services),
    clock: services.clock,
    notices: {
      ledger: noticeLedger(services),
      notifier: () => usageNotifier(services),
      accounts: { getAccount: (accountId) => cachedAccountStore(services).getAccount(accountId) },
      sent: sentNotices(services),
      // The webhook parts (the Webhooks table, the SQS client) are loaded on a notice only.
      announce: async (notice) =>
        (await import('../aws/webhook-services.js')).announceUsageThreshold(services, notice),
    },
    logger,
    annotations: traceAnnotations,
    metrics: {
      usageEvents: (accountId, meter, units) => {
        const emf = metrics(services);
        addUsageEvent(emf, accountId, meter, units);
        emf.publishStoredMetrics();
      },
      noticeFailed: () => {
        metrics(services).singleMetric().addMetric(USAGE_NOTICE_FAILED_METRIC, MetricUnit.Count, 1);
      },
    },
  };
}

type Entry = LambdaEntry<APIGatewayProxyEvent, APIGatewayProxyResult>;

/**
 * A route's Lambda handler, its pipeline chosen by the route's auth kind (routes.ts):
 * - a secret or publishable key: authorizer context -> input validation -> admission (rate limit
 *   and monthly cap, one counter write) -> run -> response, the chain of `defineHandlerWith`;
 * - the dashboard's session, or none: the shorter chain of session-pipeline.ts, nothing admitted
 *   or billed; `run` gets the session (or null, for a route that answers signed-out calls).
 * Either runs on a service instance: the container's, or the one `build` is given.
 */
export function defineHandler<I>(definition: SessionProbeSpec<I>): Entry;
export function defineHandler<I>(definition: SessionHandlerSpec<I>): Entry;
export function defineHandler<I>(definition: OpenHandlerSpec<I>): Entry;
export function defineHandler<I, R = undefined>(definition: HandlerSpec<I, R>): Entry;
export function defineHandler<I, R>(
  definition: HandlerSpec<I, R> | SessionHandlerSpec<I> | SessionProbeSpec<I> | OpenHandlerSpec<I>,
): Entry {
  return lambdaEntry((services) => {
    const route: Route = definition.route;
    if (isKeyRoute(route)) {
      return defineHandlerWith(pipelineDeps(services))(definition as HandlerSpec<I, R>);
    }
    return sessionHandler(services, definition as SessionHandlerSpec<I> | OpenHandlerSpec<I>);
  });
}
