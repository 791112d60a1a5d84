import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ErrorBody } from './errors.js';

/** What a route's `run` returns; the factory turns it into the API Gateway proxy result. */
export type Reply =
  | { status?: number; json: unknown; headers?: Record<string, string> }
  | { status?: number; text: string; contentType: string; headers?: Record<string, string> }
  | { status: 204 | 302; headers?: Record<string, string> };

export function toProxyResult(reply: Reply): APIGatewayProxyResult {
  const headers: Record<string, string> = { ...reply.headers };
  if ('json' in reply) {
    return {
      statusCode: reply.status ?? 200,
      headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
      body: JSON.stringify(reply.json),
    };
  }
  if ('text' in reply) {
    return {
      statusCode: reply.status ?? 200,
      headers: { 'Content-Type': reply.contentType, ...headers },
      body: reply.text,
    };
  }
  return { statusCode: reply.status, headers, body: '' };
}

export function errorResult(
  status: number,
  body: ErrorBody,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}
