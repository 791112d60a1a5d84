import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Reservation } from '../handler-spec.js';
import type { Principal } from '../principal.js';
import type { MinuteUsage } from '../rate-limit-headers.js';
import type { HttpRequest } from '../request.js';

/**
 * What the pipeline learns about one call, on middy's `request.context` (as middy's own
 * middlewares put what they load there): each middleware sets its field, later ones read it.
 * Lambda hands every invocation a new context object, so nothing leaks between calls.
 */
export interface RequestState<I = unknown, R = unknown> {
  /** The request, normalised once (http-request.ts). */
  httpRequest?: HttpRequest;
  /** Who is calling, from the authorizer's context (principal.ts). */
  principal?: Principal;
  /** The route's validated input (validate-input.ts). */
  input?: I;
  /** Validation refused the request: it still counts against the minute (admission.ts). */
  inputRefused?: boolean;
  /** What this call is to cost and the instant it is charged at (billing.ts). */
  charge?: { units: number; at: Date; hold?: string };
  /** What the route's `reserve` answered (job-reservation.ts). */
  reservation?: Reservation<R>;
  /** What admission charged: units against the month counter of `month` (admission.ts). */
  admitted?: { units: number; month: string; monthBefore: number; monthAfter: number };
  /**
   * The account's minute window as the counter showed it once this call was counted (or refused
   * for the rate): the X-RateLimit-* headers (admission.ts, response-headers.ts).
   */
  minute?: MinuteUsage;
}

export type RequestContext<I = unknown, R = unknown> = Context & RequestState<I, R>;

/** A middleware of the route pipeline. */
export type Middleware<I = unknown, R = unknown> = middy.MiddlewareObj<
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Error,
  RequestContext<I, R>
>;

/** The request a middleware of the pipeline sees. */
export type PipelineRequest<I = unknown, R = unknown> = middy.Request<
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Error,
  RequestContext<I, R>
>;

/**
 * A field an earlier middleware must have set: a missing one is a pipeline built in the wrong
 * order (a bug, answered 500), never a client's fault.
 */
export function stateOf<I, R, K extends keyof RequestState<I, R>>(
  context: RequestContext<I, R>,
  key: K,
): NonNullable<RequestState<I, R>[K]> {
  const value = context[key];
  if (value === undefined || value === null)
    throw new Error(`request pipeline: ${String(key)} is not set yet`);
  return value as NonNullable<RequestState<I, R>[K]>;
}
