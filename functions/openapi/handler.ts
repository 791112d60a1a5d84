import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { buildOpenApi } from '../api-reference/openapi.js';
import { SITE_CACHE_CONTROL } from '../api-reference/site-cache-control.js';
import { CONTRACTS } from '../contracts.js';
import { ROUTES } from '../routes.js';

// GET /v1/openapi.json, served without a key. Built once per container from the contracts.
let body: string | undefined;

export async function handler(
  event?: Pick<APIGatewayProxyEvent, 'requestContext'>,
): Promise<APIGatewayProxyResult> {
  body ??= JSON.stringify(buildOpenApi(ROUTES, CONTRACTS));
  const requestId = event?.requestContext?.requestId;
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Access-Control-Allow-Origin': '*',
      // As the reference page at /docs that shows it: the same for every caller, new with a deploy.
      'Cache-Control': SITE_CACHE_CONTROL,
      // API Gateway's id of the request, as on every answer of the API (docs/api.md: Errors).
      ...(requestId ? { 'X-Request-Id': requestId, 'Access-Control-Expose-Headers': 'X-Request-Id' } : {}),
    },
    body,
  };
}
