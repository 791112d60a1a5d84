import type { APIGatewayProxyResult } from 'aws-lambda';
import { CONTRACTS } from '../contracts.js';
import { buildOpenApi } from '../lib/http/openapi.js';
import { ROUTES } from '../routes.js';

// GET /v1/openapi.json, served without a key. Built once per container from the contracts.
let body: string | undefined;

export async function handler(): Promise<APIGatewayProxyResult> {
  body ??= JSON.stringify(buildOpenApi(ROUTES, CONTRACTS));
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Access-Control-Allow-Origin': '*' },
    body,
  };
}
