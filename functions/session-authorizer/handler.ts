import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { signInDeps } from '../lib/aws/services.js';
import { traceInvocation } from '../lib/aws/tracing.js';
import { decideSession } from '../lib/dashboard/session-auth.js';
import { decideOrDefer } from '../lib/http/dependency-unavailable.js';
import { headerValues, lastValues } from '../lib/http/multi-value.js';
import { logger } from '../lib/observability.js';
import { lambdaEntry } from '../lib/runtime/lambda-entry.js';
import type { Services } from '../lib/runtime/services.js';
import { ROUTES } from '../routes.js';

// API Gateway REQUEST authorizer of the dashboard's session routes (run by the local server in the
// same place). It reads the session cookie, not a key. Like the key authorizer it lets a refused
// call through with the refusal in its context, so the route's function answers it with its own
// code and message (401 session_required, 403 csrf_token_invalid); API Gateway's fixed 401 could
// only say one text. No identity sources, so no cached decision outlives a sign-out.

function allow(
  principalId: string,
  resource: string,
  context: Record<string, string>,
): APIGatewayAuthorizerResult {
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }],
    },
    context,
  };
}

async function authorize(
  services: Services,
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> {
  const route = ROUTES.find(
    (r) => r.path === event.resource && r.method === event.httpMethod && r.auth === 'session',
  );
  if (!route) throw new Error('Unauthorized');
  const all = headerValues(event);
  // HTTP/2 may split cookies over several Cookie fields (RFC 9113 8.2.3): read them as one.
  const headers = { ...lastValues(all), cookie: (all.cookie ?? []).join('; ') };
  const decision = await decideSession({ method: event.httpMethod, headers }, signInDeps(services));
  if (!decision.ok) {
    logger.info('dashboard call refused by session authorizer', {
      route: route.name,
      correlation_id: event.requestContext?.requestId,
      code: decision.code,
    });
    return allow('refused', event.methodArn, { errorCode: decision.code, message: decision.message });
  }
  return allow(decision.accountId, event.methodArn, {
    accountId: decision.accountId,
    email: decision.email,
    // Internal to AWS (authorizer -> function): GET /v1/dashboard/session hands it to the page
    // without reading the session again.
    csrfToken: decision.csrfToken,
    sessionExpiresAt: decision.expiresAt.toISOString(),
  });
}

/**
 * The decision, or, when the session could not be read in time (a hung DynamoDB:
 * aws/call-bounds.ts), an Allow that hands the route's function a 503 service_unavailable with
 * Retry-After to answer; a thrown error would be API Gateway's fixed 500.
 */
async function authorizeOrDefer(
  services: Services,
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> {
  return decideOrDefer(
    'session authorizer',
    logger,
    event.requestContext?.requestId,
    () => authorize(services, event),
    (unavailable) =>
      allow('refused', event.methodArn, { errorCode: unavailable.code, message: unavailable.message }),
  );
}

export const handler = lambdaEntry((services) =>
  middy((event: APIGatewayRequestAuthorizerEvent) => authorizeOrDefer(services, event)).use(
    traceInvocation(),
  ),
);
