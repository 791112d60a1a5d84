import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { AUTH_MESSAGES, authenticate } from '../lib/accounts/authenticate.js';
import { usageIdentifierKey } from '../lib/accounts/usage-plan-keys.js';
import { baseDomain, cachedAccountStore, cachedHostnameStore } from '../lib/aws/services.js';
import { hostCandidate, requestHost } from '../lib/custom-hostnames/binding.js';
import { fromOurEdge } from '../lib/http/edge-origin.js';
import { denialContext } from '../lib/http/gateway-responses.js';
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

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const route = (ROUTES as readonly Route[]).find(
    (r) => r.path === event.resource && r.method === event.httpMethod,
  );
  if (!route) throw new Error('Unauthorized');
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
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
        },
        context,
        ...(refusedCallsKey ? { usageIdentifierKey: refusedCallsKey } : {}),
      };
    }
    return {
      principalId: 'anonymous',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: event.methodArn }],
      },
      context,
    };
  }
  const usageKey = usageIdentifierKey(decision.usagePlanKey, usagePlanKeys, decision.principal.plan);
  return {
    principalId: decision.principal.accountId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
    },
    context: toAuthorizerContext(decision.principal),
    ...(usageKey ? { usageIdentifierKey: usageKey } : {}),
  };
}
