import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authenticate } from '../lib/accounts/authenticate.js';
import { usageIdentifierKey } from '../lib/accounts/usage-plan-keys.js';
import { baseDomain, cachedAccountStore, cachedHostnameStore } from '../lib/aws/services.js';
import { hostCandidate, requestHost } from '../lib/custom-hostnames/binding.js';
import { fromOurEdge } from '../lib/http/edge-origin.js';
import { denialContext } from '../lib/http/gateway-responses.js';
import { headerValues, lastValues, queryValues } from '../lib/http/multi-value.js';
import { toAuthorizerContext } from '../lib/http/principal.js';
import { logger } from '../lib/observability.js';
import { ROUTES, type Route } from '../routes.js';

// API Gateway REQUEST authorizer for every keyed route (and, locally, run by the local server in
// the same place). No identity sources are configured because the key may arrive in one of three
// places; API Gateway therefore does not cache decisions, and key records are cached in memory
// for KEY_CACHE_SECONDS instead. 401 is signalled by throwing "Unauthorized"; 403 is a Deny whose
// context feeds the ACCESS_DENIED gateway response. The usage-plan key named for an allowed request
// is the account's own (per-account outer throttle), else its plan's shared key.

/** The shared usage-plan key of each plan, from the stack: {"free":"…"} (accounts without their own). */
const usagePlanKeys: Record<string, string> = JSON.parse(process.env.USAGE_PLAN_KEYS ?? '{}');

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
    logger.info('request refused by authorizer', { route: route.name, code: decision.code });
    if (decision.status === 401) throw new Error('Unauthorized');
    return {
      principalId: 'anonymous',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: event.methodArn }],
      },
      context: denialContext({
        errorCode: decision.code,
        message: decision.message,
        allowedOrigin: decision.allowedOrigin,
      }),
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
