import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { type Billing, type Route, type RouteName, routeByName } from '../../routes.js';
import { now, usageCounter } from '../aws/services.js';
import { type Admitted, admit } from '../limits/admission.js';
import { monthKey } from '../limits/windows.js';
import { logger, metrics } from '../observability.js';
import { corsHeaders } from './cors.js';
import { HttpError, MonthlyLimitError, RateLimitError } from './errors.js';
import { notifyThresholds } from './notify-thresholds.js';
import { type Principal, PrincipalSchema } from './principal.js';
import { errorResult, type Reply, toProxyResult } from './reply.js';
import { fromApiGatewayEvent, type HttpRequest } from './request.js';

export interface CallContext<R = undefined> {
  principal: Principal;
  req: HttpRequest;
  now: Date;
  /** What admission charged this call (units against the month counter of `month`). */
  billed: { units: number; month: string };
  /** What the route's `reserve` kept for its run (undefined without one). */
  reserved: R;
  lambda: Context;
}

export interface ReserveContext {
  principal: Principal;
  req: HttpRequest;
  now: Date;
  /** What admission is about to charge, and the month it will charge it to. */
  units: number;
  month: string;
}

/** What a route's `reserve` answers: a charge to make under a hold, or a reply with nothing to charge. */
export type Reservation<R> = { hold: string; state: R; release: () => Promise<void> } | { replay: Reply };

export interface HandlerSpec<I, R = undefined> {
  route: RouteName;
  /** Validates the request into the route's input; throws ValidationError (400/413/415). */
  input: (req: HttpRequest, principal: Principal) => I | Promise<I>;
  /**
   * For a charge that must survive a crash (jobs-create): runs after validation, before admission,
   * and records what is about to be charged. Admission then marks its charge with `hold` in the
   * same counter write, and on any failure after this point `release` runs instead of the plain
   * 5xx refund (it knows whether the work stood). `replay` answers at once: the call is counted
   * against the minute, nothing is charged and `run` does not run.
   */
  reserve?: (input: I, ctx: ReserveContext) => Promise<Reservation<R>>;
  run: (input: I, ctx: CallContext<R>) => Promise<Reply> | Reply;
}

interface Internal extends Record<string, unknown> {
  req?: HttpRequest;
  principal?: Principal;
  input?: unknown;
  admitted?: Admitted & { units: number };
  reservation?: Reservation<unknown>;
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
export function defineHandler<I, R = undefined>(spec: HandlerSpec<I, R>) {
  const route: Route = routeByName(spec.route);
  const meter = route.billing.per === 'none' ? null : route.billing.meter;

  // Per-invocation state, keyed by the event: middy hands the handler only (event, context).
  const state = new WeakMap<APIGatewayProxyEvent, Internal>();

  const core = async (event: APIGatewayProxyEvent, lambda: Context) => {
    const { req, principal, input, admitted, reservation } = state.get(event)!;
    if (reservation && 'replay' in reservation) return toProxyResult(reservation.replay);
    const billed = { units: admitted?.units ?? 0, month: admitted?.month ?? '' };
    const reply = await spec.run(input as I, {
      principal: principal!,
      req: req!,
      now: now(),
      billed,
      reserved: (reservation && 'state' in reservation ? reservation.state : undefined) as R,
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
        try {
          request.internal.input = await spec.input(req, request.internal.principal);
        } catch (err) {
          if (err instanceof HttpError && err.status < 500)
            await countRefusedCall(request.internal.principal);
          throw err;
        }
        state.set(request.event, request.internal);
      },
    })
    .use({
      before: async (request) => {
        const principal = request.internal.principal!;
        let units = billedUnits(route.billing, request.internal.input);
        if (units > principal.monthlyCap) throw admitError(units);
        // One instant for the reservation and the charge: both name the same month.
        const at = now();
        let hold: string | undefined;
        if (spec.reserve) {
          const reservation = await spec.reserve(request.internal.input as I, {
            principal,
            req: request.internal.req!,
            now: at,
            units,
            month: monthKey(at),
          });
          request.internal.reservation = reservation as Reservation<unknown>;
          if ('replay' in reservation) units = 0;
          else hold = reservation.hold;
        }
        const admitted = await admit(usageCounter(), {
          accountId: principal.accountId,
          perMinute: principal.perMinute,
          monthlyCap: principal.monthlyCap,
          units,
          meter,
          now: at,
          ...(hold ? { hold } : {}),
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
        // A reserved charge is settled by the route's release, whatever the status: it returns
        // the charge unless the work stood (and a refund below could return it twice).
        const reservation = request.internal.reservation;
        if (reservation && 'release' in reservation) {
          await reservation
            .release()
            .catch((err: unknown) => logger.error('release failed', { error: err as Error }));
          return;
        }
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

/**
 * A call refused by validation is still a call (spec: Limits, the per-minute limit counts HTTP
 * calls): it takes one unit of the minute window and nothing of the month (admission of 0 units),
 * so a client whose bodies are refused is slowed down like any other. Once the minute is full the
 * answer is the 429; a counter failure leaves the validation error as the answer.
 */
async function countRefusedCall(principal: Principal): Promise<void> {
  try {
    await admit(usageCounter(), {
      accountId: principal.accountId,
      perMinute: principal.perMinute,
      monthlyCap: principal.monthlyCap,
      units: 0,
      meter: null,
      now: now(),
    });
  } catch (err) {
    if (err instanceof RateLimitError) throw err;
    logger.error('counting a refused call failed', { error: err as Error });
  }
}

function admitError(units: number): HttpError {
  return new MonthlyLimitError(
    `This request needs ${units} requests, more than the monthly cap allows; nothing was charged.`,
  );
}
