import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { AUTH_MESSAGES } from '../lib/accounts/auth-messages.js';
import { type AuthDecision, authenticate } from '../lib/accounts/authenticate.js';
import { usageIdentifierKey } from '../lib/accounts/usage-plan-keys.js';
import {
  accountStore,
  baseDomain,
  cachedAccountStore,
  cachedHostnameStore,
  signInDeps,
} from '../lib/aws/services.js';
import { traceAnnotations, traceInvocation } from '../lib/aws/tracing.js';
import { hostCandidate, requestHost } from '../lib/custom-hostnames/binding.js';
import { decideSession } from '../lib/dashboard/session-auth.js';
import { SESSION_COOKIE } from '../lib/dashboard/session-cookie.js';
import { fromOurEdge } from '../lib/gateway/edge-origin.js';
import { denialContext } from '../lib/gateway/gateway-responses.js';
import { decideOrDefer } from '../lib/http/dependency-unavailable.js';
import { TRACE_ANNOTATION } from '../lib/http/middleware/trace-annotations.js';
import { headerValues, lastValues, queryValues } from '../lib/http/multi-value.js';
import { toAuthorizerContext } from '../lib/http/principal.js';
import { logger } from '../lib/observability.js';
import { lambdaEntry } from '../lib/runtime/lambda-entry.js';
import { part, type Services } from '../lib/runtime/services.js';
import { isKeyRoute, ROUTES, type Route } from '../routes.js';

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

// The configuration's USAGE_PLAN_KEYS: the shared usage-plan key of each plan, from the stack,
// {"free":"…"} (accounts without their own); REFUSED_USAGE_PLAN_KEY: the usage-plan key of calls
// refused with a 401 (none locally, where there are no usage plans).

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

async function authorize(
  services: Services,
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> {
  const {
    USAGE_PLAN_KEYS: usagePlanKeys,
    REFUSED_USAGE_PLAN_KEY: refusedCallsKey,
    ORIGIN_SECRET,
  } = services.config;
  // The key routes only: the dashboard's have their own authorizer, the open ones none.
  const route = (ROUTES as readonly Route[])
    .filter(isKeyRoute)
    .find((r) => r.path === event.resource && r.method === event.httpMethod);
  if (!route) throw new Error('Unauthorized');
  traceAnnotations?.annotate(TRACE_ANNOTATION.route, route.name);
  // Every value, from the multi-value maps: a key sent twice must be seen twice (authenticate.ts).
  const allHeaders = headerValues(event);
  const headers = lastValues(allHeaders);
  // Rule 7: the hostname the request was addressed to (X-Forwarded-Host only from our CloudFront).
  const hostname = hostCandidate(
    requestHost(headers, fromOurEdge({ headers }, ORIGIN_SECRET)),
    baseDomain(services),
  );
  let decision = await authenticate(
    {
      route,
      headers: allHeaders,
      query: queryValues(event),
      ...(hostname ? { host: { hostname, lookup: cachedHostnameStore(services) } } : {}),
    },
    cachedAccountStore(services),
  );
  const cookies = (allHeaders.cookie ?? []).join('; ');
  if (
    !decision.ok &&
    // No key, or only a `?key=` this route does not read: the dashboard's session may stand in.
    (decision.message === AUTH_MESSAGES.noKey || decision.message === AUTH_MESSAGES.keyQueryNotRead) &&
    route.dashboardSession &&
    cookies.includes(`${SESSION_COOKIE}=`)
  ) {
    decision = await dashboardSession(services, event.httpMethod, { ...headers, cookie: cookies });
  }
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
  if (decision.key) await markUsed(services, decision.key.keyHash, decision.key.lastUsedDay);
  const usageKey = usageIdentifierKey(decision.usagePlanKey, usagePlanKeys, decision.principal.plan);
  return {
    principalId: decision.principal.accountId,
    policyDocument: invokePolicy('Allow', event.methodArn),
    context: toAuthorizerContext(decision.principal),
    ...(usageKey ? { usageIdentifierKey: usageKey } : {}),
  };
}

/** Keys this instance marked used today (key hash -> day): one write per key, day and container. */
const keysMarkedToday = /* @__PURE__ */ part(() => new Map<string, string>());

/**
 * Notes the day a key was used (the dashboard's "last used"): at most one conditional write per key
 * and day in each container, never a reason to refuse the call.
 */
async function markUsed(services: Services, keyHash: string, recorded: string | undefined): Promise<void> {
  const markedToday = keysMarkedToday(services);
  const day = services.now().toISOString().slice(0, 10);
  if (recorded === day || markedToday.get(keyHash) === day) return;
  markedToday.set(keyHash, day);
  if (markedToday.size > 10_000) markedToday.clear();
  try {
    await accountStore(services).markUsed(keyHash, day);
  } catch (err) {
    logger.warn('could not note the day a key was used', { error: err as Error });
  }
}

/**
 * A list-job call from the dashboard: its session (and CSRF token on a POST) in place of a secret
 * key, as the account's backend would call with one (docs/dashboard.md). Billed like any call.
 */
async function dashboardSession(
  services: Services,
  method: string,
  headers: Record<string, string>,
): Promise<AuthDecision> {
  const session = await decideSession({ method, headers }, signInDeps(services));
  if (!session.ok) {
    return {
      ok: false,
      status: session.code === 'session_required' ? 401 : 403,
      code: session.code,
      message: session.message,
    };
  }
  const account = await cachedAccountStore(services).getAccount(session.accountId);
  if (!account) return { ok: false, status: 401, code: 'session_required', message: 'The account is gone.' };
  return {
    ok: true,
    principal: {
      accountId: account.accountId,
      keyId: 'dashboard',
      keyType: 'secret',
      plan: account.plan,
      perMinute: account.perMinute,
      monthlyCap: account.monthlyCap,
      includesSecurity: account.includesSecurity,
      allowedOrigin: '',
      channel: 'dashboard',
      member: session.email,
      ...(account.rulesVersion ? { rulesVersion: account.rulesVersion } : {}),
    },
    ...(account.usagePlanKey ? { usagePlanKey: account.usagePlanKey.value } : {}),
  };
}

/**
 * The decision, or, when a key, account, hostname or session could not be read in time (a hung
 * DynamoDB: aws/call-bounds.ts), an Allow that hands the route's function a 503 service_unavailable
 * with Retry-After to answer (http/middleware/principal.ts), nothing counted. A thrown error would
 * be API Gateway's fixed 500. Like the 401s let through, it goes under the refused calls'
 * usage-plan key: while DynamoDB does not answer, calls whose key is not in a container's cache
 * share that plan's throttle.
 */
async function authorizeOrDefer(
  services: Services,
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> {
  const refusedCallsKey = services.config.REFUSED_USAGE_PLAN_KEY;
  return decideOrDefer(
    'authorizer',
    logger,
    event.requestContext?.requestId,
    () => authorize(services, event),
    (unavailable) => {
      traceAnnotations?.annotate(TRACE_ANNOTATION.errorCode, unavailable.code);
      return {
        principalId: 'refused',
        policyDocument: invokePolicy('Allow', event.methodArn),
        context: denialContext({ errorCode: unavailable.code, message: unavailable.message }),
        ...(refusedCallsKey ? { usageIdentifierKey: refusedCallsKey } : {}),
      };
    },
  );
}

/**
 * The Lambda handler: the decision inside the invocation's X-Ray subsegment where tracing is on
 * (aws/tracing.ts). Middy lets the context be left out, as the local server and benchmarks do.
 */
export const handler = lambdaEntry((services) =>
  middy((event: APIGatewayRequestAuthorizerEvent) => authorizeOrDefer(services, event)).use(
    traceInvocation(),
  ),
);
