import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { AUTH_MESSAGES, authenticate } from '../lib/accounts/authenticate.js';
import { usageIdentifierKey } from '../lib/accounts/usage-plan-keys.js';
import { baseDomain, cachedAccountStore, cachedHostnameStore } from '../lib/aws/services.js';
import { traceAnnotations, traceInvocation } from '../lib/aws/tracing.js';
import { hostCandidate, requestHost } from '../lib/custom-hostnames/binding.js';
import { fromOurEdge } from '../lib/http/edge-origin.js';
import { denialContext } from '../lib/http/gateway-responses.js';
import { TRACE_ANNOTATION } from '../lib/http/middleware/trace-annotations.js';
import { headerValues, lastValues, queryValues } from '../lib/http/multi-value.js';
import { toAuthorizerContext } from '../lib/http/principal.js';
import { logger } from '../lib/observability.js';
import { config } from '../lib/runtime/config.js';
import { ROUTES, type Route } from '../routes.js';

// API Gateway REQUEST authorizer for every keyed route (and, locally, run by the local server in
// the same place). No identity sources are configured because the key may arrive in one of three
// places; API Gateway therefore does not cache decisions, and key records are cached in memory
// for KEY_CACHE_SECONDS instead. 403 is a Deny whose context feeds the ACCESS_DENIED gateway
// response (its message is the template's). A 401 thrown as "Unauthorized" can only be API
// Gateway's one fixed UNAUTHORIZED text, so only a request without any key gets it (that text says
// so); every other 401 (malformed, unknown or revoked key, a key in the wrong place, more than one
// key) is an Allow carrying the refusal, which the route's function answers with its message before
// anything else runs (http/middleware/principal.ts). Those calls are named the refused-calls
// usage-plan key, whose usage plan throttles them all together (infra/constructs/api.ts). The
// usage-plan key of an allowed request is the account's own (per-account outer throttle), else its
// plan's shared key.

/** The shared usage-plan key of each plan, from the stack: {"free":"…"} (accounts without their own). */
const usagePlanKeys = config().USAGE_PLAN_KEYS;
/** The usage-plan key of calls refused with a 401 (none locally, where there are no usage plans). */
const refusedCallsKey = config().REFUSED_USAGE_PLAN_KEY;

/** execute-api:Invoke of the called method, allowed or denied: the policy of every answer. */
function invokePolicy(
  effect: 'Allow' | 'Deny',
  resource: string,
): APIGatewayAuthorizerResult['policyDocument'] {
  return {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: resource }],
  };
}

async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const route = (ROUTES as readonly Route[]).find(
    (r) => r.path === event.resource && r.method === event.httpMethod,
  );
  if (!route) throw new Error('Unauthorized');
  traceAnnotations?.annotate(TRACE_ANNOTATION.route, route.name);
  // Every value, from the multi-value maps: a key sent twice must be seen twice (authenticate.ts).
  const allHeaders = headerValues(event);
  const headers = lastValues(allHeaders);
  // Rule 7: the hostname the request was addressed to (X-Forwarded-Host only from our CloudFront).
  const hostname = hostCandidate(requestHost(headers, fromOurEdge({ headers })), baseDomain());
  const decision = await authenticate(
    {
      route,
      headers: allHeaders,
      query: queryValues(event),
      ...(hostname ? { host: { hostname, lookup: cachedHostnameStore() } } : {}),
    },
    cachedAccountStore(),
  );
  if (!decision.ok) {
    traceAnnotations?.annotate(TRACE_ANNOTATION.errorCode, decision.code);
    logger.info('request refused by authorizer', {
      route: route.name,
      correlation_id: event.requestContext?.requestId,
      code: decision.code,
      reason: decision.message,
      ...(decision.refusedOrigin ? { refusedOrigin: decision.refusedOrigin } : {}),
    });
    if (decision.status === 401 && decision.message === AUTH_MESSAGES.noKey) throw new Error('Unauthorized');
    const context = denialContext({
      errorCode: decision.code,
      message: decision.message,
      allowedOrigin: decision.allowedOrigin,
      refusedOrigin: decision.refusedOrigin,
    });
    if (decision.status === 401) {
      return {
        principalId: 'refused',
        policyDocument: invokePolicy('Allow', event.methodArn),
        context,
        ...(refusedCallsKey ? { usageIdentifierKey: refusedCallsKey } : {}),
      };
    }
    return {
      principalId: 'anonymous',
      policyDocument: invokePolicy('Deny', event.methodArn),
      context,
    };
  }
  traceAnnotations?.annotate(TRACE_ANNOTATION.account, decision.principal.accountId);
  const usageKey = usageIdentifierKey(decision.usagePlanKey, usagePlanKeys, decision.principal.plan);
  return {
    principalId: decision.principal.accountId,
    policyDocument: invokePolicy('Allow', event.methodArn),
    context: toAuthorizerContext(decision.principal),
    ...(usageKey ? { usageIdentifierKey: usageKey } : {}),
  };
}

/**
 * The Lambda handler: the decision inside the invocation's X-Ray subsegment where tracing is on
 * (aws/tracing.ts). Middy lets the context be left out, as the local server and benchmarks do.
 */
export const handler = middy(authorize).use(traceInvocation()) as (
  event: APIGatewayRequestAuthorizerEvent,
  context?: Context,
) => Promise<APIGatewayAuthorizerResult>;
