import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerValues, queryValues } from './multi-value.js';

/**
 * Query parameters that are lists: given more than once (`?fields=country&fields=asn`), their
 * values are joined with commas, as one `?fields=country,asn`. Any other parameter keeps its last
 * value, as API Gateway's single-value map does, and is named in `repeatedQuery`: a parameter the
 * route's contract names is refused when repeated (validateQuery).
 */
const LIST_PARAMETERS: readonly string[] = ['fields'];

/** The parts of an API Gateway REST (v1 proxy) event that handlers use, normalised once. */
export interface HttpRequest {
  method: string;
  path: string;
  pathParameters: Record<string, string>;
  query: Record<string, string>;
  /** Lower-cased names: Node and API Gateway disagree on case, clients send any. */
  headers: Record<string, string>;
  /**
   * Lower-cased names of the headers sent more than once; `headers` holds the last value of each,
   * as API Gateway's single-value map does. A contract header sent twice is refused (validateHeaders).
   */
  repeatedHeaders: readonly string[];
  /** Names of the query parameters sent more than once, list parameters (`fields`) aside. */
  repeatedQuery: readonly string[];
  body: Buffer | null;
  sourceIp: string;
  requestId: string;
}

export function fromApiGatewayEvent(event: APIGatewayProxyEvent): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (typeof value === 'string') headers[name.toLowerCase()] = value;
  }
  const body =
    event.body === null || event.body === undefined
      ? null
      : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  return {
    method: event.httpMethod,
    path: event.path,
    pathParameters: definedOnly(event.pathParameters),
    query: withLists(definedOnly(event.queryStringParameters), event),
    headers,
    repeatedHeaders: Object.entries(headerValues(event))
      .filter(([, values]) => values.length > 1)
      .map(([name]) => name),
    repeatedQuery: Object.entries(queryValues(event))
      .filter(([name, values]) => values.length > 1 && !LIST_PARAMETERS.includes(name))
      .map(([name]) => name),
    body,
    sourceIp: event.requestContext?.identity?.sourceIp ?? '',
    requestId: event.requestContext?.requestId ?? '',
  };
}

function definedOnly(values: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}

function withLists(query: Record<string, string>, event: APIGatewayProxyEvent): Record<string, string> {
  if (!LIST_PARAMETERS.some((name) => name in query)) return query;
  const all = queryValues(event);
  const out = { ...query };
  for (const name of LIST_PARAMETERS) {
    const values = all[name];
    if (values && values.length > 1) out[name] = values.join(',');
  }
  return out;
}
