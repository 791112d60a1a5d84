import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { type Billing, type Route, type RouteName, routeByName } from '../../routes.js';
import { now, usageCounter } from '../aws/services.js';
import { type Admitted, admit } from '../limits/admission.js';
import { logger, metrics } from '../observability.js';
import { corsHeaders } from './cors.js';
import { HttpError, MonthlyLimitError } from './errors.js';
import { notifyThresholds } from './notify-thresholds.js';
import { type Principal, PrincipalSchema } from './principal.js';
import { errorResult, type Reply, toProxyResult } from './reply.js';
import { fromApiGatewayEvent, type HttpRequest } from './request.js';

export interface CallContext {
  principal: Principal;
  req: HttpRequest;
  now: Date;
  /** What admission charged this call (units against the month counter of `month`). */
  billed: { units: number; month: string };
  lambda: Context;
}

export interface HandlerSpec<I> {
  route: RouteName;
  /** Validates the request into the route's input; throws ValidationError (400/413/415). */
  input: (req: HttpRequest, principal: Principal) => I | Promise<I>;
  run: (input: I, ctx: CallContext) => Promise<Reply> | Reply;
}

interface Internal extends Record<string, unknown> {
  req?: HttpRequest;
  principal?: Principal;
  input?: unknown;
  admitted?: Admitted & { units: number };
}

/** Units of the monthly cap a validated input costs (spec: Billing against the monthly cap). */
export function billedUnits(billing: Billing, input: unknown): number {
  switch (billing.per) {
    case 'none':
      return 0;
    case 'call':
      return 1;
    case 'item':
    case 'distinct': {
      const items = (input as Record<string, unknown>)[billing.field];
      if (!Array.isArray(items)) throw new Error(`route input has no array "${billing.field}"`);
      return billing.per === 'item' ? items.length : new Set(items).size;
    }
  }
}

/** The principal the authorizer established, from the event's authorizer context. */
function principalOf(event: APIGatewayProxyEvent): Principal {
  const parsed = PrincipalSchema.safeParse(event.requestContext?.authorizer ?? {});
  if (!parsed.success) throw new HttpError('invalid_api_key', 'Missing or invalid API key.');
  return parsed.data;
}

/**
 * Builds a route's Lambda handler: authorizer context -> input validation -> admission (rate
 * limit and monthly cap, one counter write) -> run -> response, with errors as {error, message},
 * CORS for allowed browser origins, a refund when the call fails with 5xx after admission, and a
 * usage metric per billed unit.
 */
export function defineHandler<I>(spec: HandlerSpec<I>) {
  const route: Route = routeByName(spec.route);
  const meter = route.billing.per === 'none' ? null : route.billing.meter;

  // Per-invocation state, keyed by the event: middy hands the handler only (event, context).
  const state = new WeakMap<APIGatewayProxyEvent, Internal>();

  const core = async (event: APIGatewayProxyEvent, lambda: Context) => {
    const { req, principal, input, admitted } = state.get(event)!;
    const billed = { units: admitted?.units ?? 0, month: admitted?.month ?? '' };
    const reply = await spec.run(input as I, {
      principal: principal!,
      req: req!,
      now: now(),
      billed,
      lambda,
    });
    return toProxyResult(reply);
  };

  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context, Internal>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({
      // Outermost: every failure becomes {error, message}; internals never reach the body.
      onError: async (request) => {
        const err = request.error;
        const cors = corsHeaders(route.keyType, request.internal.principal?.allowedOrigin);
        if (err instanceof HttpError) {
          request.response = errorResult(err.status, err.toBody(), { ...cors, ...err.headers });
          return;
        }
        logger.error('unhandled error', { route: route.name, error: err as Error });
        request.response = errorResult(
          500,
          { error: 'internal_error', message: 'An unexpected error occurred.' },
          cors,
        );
      },
      after: async (request) => {
        const cors = corsHeaders(route.keyType, request.internal.principal?.allowedOrigin);
        if (request.response) request.response.headers = { ...request.response.headers, ...cors };
      },
    })
    .use({
      before: async (request) => {
        const req = fromApiGatewayEvent(request.event);
        request.internal.req = req;
        request.internal.principal = principalOf(request.event);
        logger.appendKeys({ route: route.name, accountId: request.internal.principal.accountId });
        // Rule 7: the authorizer lets a request on a known but inactive custom hostname through
        // marked `inactive` (it can only say 401/403); nothing is charged for it.
        if (request.internal.principal.hostStatus === 'inactive') {
          throw new HttpError(
            'hostname_not_active',
            `The custom hostname ${request.internal.principal.customHostname ?? ''} is not active; use the base address until it is.`,
          );
        }
        request.internal.input = await spec.input(req, request.internal.principal);
        state.set(request.event, request.internal);
      },
    })
    .use({
      before: async (request) => {
        const principal = request.internal.principal!;
        const units = billedUnits(route.billing, request.internal.input);
        if (units > principal.monthlyCap) throw admitError(units);
        const admitted = await admit(usageCounter(), {
          accountId: principal.accountId,
          perMinute: principal.perMinute,
          monthlyCap: principal.monthlyCap,
          units,
          meter,
          now: now(),
        });
        request.internal.admitted = { ...admitted, units };
        await notifyThresholds(principal, admitted);
      },
      after: async (request) => {
        const admitted = request.internal.admitted;
        if (!admitted || !meter || admitted.units === 0) return;
        // Usage events (spec: Events): one per billed unit, per account, as EMF metrics.
        const emf = metrics();
        emf.addDimension('account', request.internal.principal!.accountId);
        emf.addMetric(`${meter}Events`, MetricUnit.Count, admitted.units);
        emf.publishStoredMetrics();
      },
      onError: async (request) => {
        // A call that fails with 5xx after admission did not get its work: give the units back.
        const admitted = request.internal.admitted;
        const status = request.error instanceof HttpError ? request.error.status : 500;
        if (!admitted || admitted.units === 0 || status < 500) return;
        await usageCounter()
          .refund({
            accountId: request.internal.principal!.accountId,
            month: admitted.month,
            units: admitted.units,
            meter,
          })
          .catch((err: unknown) => logger.error('refund failed', { error: err as Error }));
      },
    })
    .handler(core as never);
}

function admitError(units: number): HttpError {
  return new MonthlyLimitError(
    `This request needs ${units} requests, more than the monthly cap allows; nothing was charged.`,
  );
}
