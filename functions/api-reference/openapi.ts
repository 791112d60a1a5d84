import type { RouteContract, RouteExample } from '../lib/http/contract.js';
import { ERROR_CODES, type ErrorCode } from '../lib/http/errors.js';
import * as z from '../lib/zod.js';
import { isKeyRoute, type KeyRoute, type OpenRoute, type Route, type SessionRoute } from '../routes.js';
import { apiGuide, apiTags } from './api-guide.js';
import { type CodeSample, codeSamples } from './code-samples.js';
import { ERROR_DOCS } from './error-docs.js';
import { operationErrors, UNEXPECTED_CODES } from './operation-errors.js';
import type { DashboardContract } from './route-contracts.js';

/** The body of every non-2xx response (docs/api.md: Errors). */
export const ErrorSchema = z.object({
  error: z
    .enum(Object.keys(ERROR_CODES) as [string, ...string[]])
    .check(z.describe('Stable machine-readable code.')),
  message: z.string().check(z.describe('Human-readable; may change.')),
  remaining: z
    .optional(z.number().check(z.int(), z.nonnegative()))
    .check(
      z.describe('monthly_limit_exceeded only: requests left of the monthly cap when the call was refused.'),
    ),
  lines: z
    .optional(
      z.array(
        z.object({
          line: z
            .number()
            .check(
              z.int(),
              z.nonnegative(),
              z.describe('1-based line of the CSV; 0 for the feed as a whole.'),
            ),
          reason: z.string().check(z.describe('Why the row was refused.')),
        }),
      ),
    )
    .check(z.describe('invalid_geofeed only: the refused rows (at most 100), by line number.')),
});

type JsonSchema = Record<string, unknown>;

/**
 * zod gives every integer the bounds ±(2^53 - 1). They constrain nothing a client can send, and
 * renderers show them as the example value ("asn": -9007199254740991): they are left out.
 */
function withoutSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeIntegerBounds);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = withoutSafeIntegerBounds(value);
  }
  return out;
}

/**
 * A schema as the document embeds it (its dialect is the document's: no `$schema` of its own): what
 * is answered (`output`), or for a request body what may be sent (`input`: a field with a default
 * is optional there).
 */
function json(schema: z.core.$ZodType, io: 'input' | 'output' = 'output'): JsonSchema {
  const { $schema: _dialect, ...js } = z.toJSONSchema(schema, { unrepresentable: 'any', io });
  return withoutSafeIntegerBounds(js) as JsonSchema;
}

const ref = (kind: 'headers' | 'schemas', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Response headers (components.headers). */
const HEADERS = {
  'X-Request-Id': {
    description:
      'Identifies this request in the service logs (every response, errors included). Quote it when reporting a problem.',
    schema: { type: 'string' },
    example: 'b7a3e0c2-5d1f-4c8e-9a6b-2f4e8d1c7a90',
  },
  'X-RateLimit-Limit': {
    description:
      "Calls the account may make per minute (its plan's rate limit). X-RateLimit-Limit, -Remaining and -Reset are sent on " +
      'every answer to a call the per-minute counter counted: successes, the answers of the operation itself (a refused ' +
      'input, an unknown job, ...) and `rate_limit_exceeded`. Not on the answers given before the call is counted: a ' +
      'refused key or custom hostname (401, 403, 421), `monthly_limit_exceeded` (it has X-Monthly-Remaining instead), a ' +
      "list job's Idempotency-Key conflicts (409), nor on API Gateway's own answers (a 404 for an unknown path, a 405, " +
      "the usage plan's 429).",
    schema: { type: 'integer' },
    example: 1200,
  },
  'X-RateLimit-Remaining': {
    description: 'Calls left in the current one-minute window.',
    schema: { type: 'integer' },
    example: 1187,
  },
  'X-RateLimit-Reset': {
    description: 'When the current one-minute window ends, in Unix epoch seconds.',
    schema: { type: 'integer' },
    example: 1795537860,
  },
  'X-Monthly-Remaining': {
    description: 'monthly_limit_exceeded: requests left of the monthly cap (as `remaining` in the body).',
    schema: { type: 'integer' },
    example: 0,
  },
  'X-Data-Version': {
    description:
      'The versions of the IP data and of the security lists that answered, as `GET /v1/data` names them ' +
      '(`none` for data not loaded). On the answers of the IP lookups: `GET /v1/geo`, `GET /v1/lookup/{ip}` and ' +
      '`POST /v1/lookup`.',
    schema: { type: 'string' },
    example: 'ip=20261127T101500Z-3f9c2a7b5d1e, lists=20261127T120000Z-9a0b1c2d3e4f',
  },
  Location: {
    description: 'Where the answer is: a presigned URL, valid for the few minutes the description says.',
    schema: { type: 'string', format: 'uri' },
  },
  'Retry-After': {
    description:
      'Seconds to wait before retrying: until the minute window ends (rate_limit_exceeded), until the first ' +
      'request with the same Idempotency-Key should be done (idempotency_key_in_progress), or a few seconds ' +
      'after a dependency did not answer in time (service_unavailable, job_storage_unavailable).',
    schema: { type: 'integer' },
    example: 17,
  },
} as const;

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

function headers(names: readonly (keyof typeof HEADERS)[]) {
  return Object.fromEntries(['X-Request-Id' as const, ...names].map((n) => [n, ref('headers', n)]));
}

function describeBilling(route: KeyRoute): string {
  const b = route.billing;
  if (b.per === 'none') return 'not billed (counts against the per-minute rate limit only)';
  if (b.per === 'call') return `1 request (${b.meter})`;
  if (b.per === 'item') return `1 request per element of \`${b.field}\` (${b.meter}), duplicates included`;
  return `1 request per distinct element of \`${b.field}\` (${b.meter}), charged at creation`;
}

function samplesMarkdown(samples: readonly CodeSample[]): string {
  return samples
    .map((s) => `**${s.lang}**\n\n\`\`\`${s.lang === 'curl' ? 'bash' : 'js'}\n${s.source}\n\`\`\``)
    .join('\n\n');
}

type Examples = Record<string, { summary: string; value: unknown }>;

/** OpenAPI `examples` of the exchanges `pick` finds a value in. */
function examplesOf(
  examples: Readonly<Record<string, RouteExample>>,
  pick: (e: RouteExample) => unknown,
): Examples {
  const out: Examples = {};
  for (const [name, example] of Object.entries(examples)) {
    const value = pick(example);
    if (value !== undefined) out[name] = { summary: example.summary, value };
  }
  return out;
}

function parameters(contract: RouteContract) {
  const out: unknown[] = [];
  for (const [where, schema, values] of [
    ['path', contract.params, (e: RouteExample) => e.params],
    ['query', contract.query, (e: RouteExample) => e.query],
    ['header', contract.headers, (e: RouteExample) => e.headers],
  ] as const) {
    if (!schema) continue;
    const js = json(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      const { description, ...rest } = s;
      const found = examplesOf(contract.examples, (e) => values(e)?.[name]);
      const distinct = new Set(Object.values(found).map((f) => f.value));
      out.push({
        name,
        in: where,
        required: where === 'path' || (js.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: rest,
        ...(distinct.size > 1
          ? { examples: found }
          : distinct.size === 1
            ? { example: [...distinct][0] }
            : {}),
      });
    }
  }
  return out;
}

/** A body that is not JSON: its text, or a form whose `file` part is (multipart/form-data). */
function rawBodySchema(type: string): JsonSchema {
  if (type !== 'multipart/form-data') return { type: 'string' };
  return {
    type: 'object',
    properties: { file: { type: 'string', contentMediaType: 'text/csv', description: 'The CSV file.' } },
    required: ['file'],
  };
}

function requestBody(contract: RouteContract) {
  if (!contract.body) return undefined;
  // A form's example is its file part's text.
  const media = (type?: string) =>
    examplesOf(contract.examples, (e) =>
      e.contentType !== type ? undefined : type === 'multipart/form-data' ? { file: e.body } : e.body,
    );
  // A text body's schema is its description; a JSON body's is the schema itself.
  const content: Record<string, unknown> = contract.textBody
    ? {}
    : { 'application/json': { schema: json(contract.body, 'input'), examples: media(undefined) } };
  const text = contract.textBody ? json(contract.body, 'input') : {};
  for (const type of contract.bodyMediaTypes ?? []) {
    const examples = media(type);
    content[type] = {
      schema: { ...rawBodySchema(type), ...(text.description ? { description: text.description } : {}) },
      ...(Object.keys(examples).length ? { examples } : {}),
    };
  }
  return { required: true, content };
}

function errorResponse(
  codes: readonly ErrorCode[],
  extraHeaders: readonly (keyof typeof HEADERS)[],
  messages: RouteContract['errorMessages'] = {},
) {
  const message = (c: ErrorCode) => messages[c] ?? ERROR_DOCS[c].message;
  return {
    description: codes.map((c) => `- \`${c}\`: ${ERROR_DOCS[c].when}`).join('\n'),
    headers: headers(extraHeaders),
    content: {
      'application/json': {
        schema: ref('schemas', 'Error'),
        examples: Object.fromEntries(
          codes.map((c) => [
            c,
            { summary: c, value: { error: c, message: message(c), ...ERROR_DOCS[c].details } },
          ]),
        ),
      },
    },
  };
}

/**
 * Codes answered before admission counts the call, so without X-RateLimit-* (the response headers
 * add them once admission put the call's minute on its context: http/middleware/response-headers.ts):
 * the authorizer's refusals and a custom hostname's, the monthly cap's (billing.ts and admission.ts
 * refuse it without counting the minute) and a list job's Idempotency-Key conflicts (its reservation
 * comes before admission: job-reservation.ts).
 */
export const UNCOUNTED_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_api_key',
  'wrong_key_type',
  'live_key_required',
  'origin_not_allowed',
  'hostname_not_yours',
  'hostname_not_active',
  'monthly_limit_exceeded',
  'idempotency_key_reused',
  'idempotency_key_in_progress',
]);

/**
 * The X-RateLimit-* of an error response: none when no code of it is counted; when only some are,
 * each header says which.
 */
function rateLimitHeadersOf(codes: readonly ErrorCode[]): Record<string, unknown> {
  const counted = codes.filter((c) => !UNCOUNTED_CODES.has(c));
  if (counted.length === 0) return {};
  if (counted.length === codes.length) return headers(RATE_LIMIT_HEADERS);
  const only = `Sent with ${counted.map((c) => `\`${c}\``).join(', ')} only, not with ${codes
    .filter((c) => UNCOUNTED_CODES.has(c))
    .map((c) => `\`${c}\``)
    .join(', ')}.`;
  return Object.fromEntries(
    RATE_LIMIT_HEADERS.map((n) => [n, { ...HEADERS[n], description: `${HEADERS[n].description} ${only}` }]),
  );
}

/**
 * The routes whose answers name the data that answered (X-Data-Version: their handlers add
 * runtime/ip.ts dataVersionHeader). test/integration/docs.cases.ts checks every example's answer
 * against the headers declared here, both ways.
 */
export const DATA_VERSION_ROUTES: ReadonlySet<string> = new Set(['geo', 'lookup-ip', 'lookup-batch']);

function successResponse(route: KeyRoute, contract: RouteContract) {
  const status = contract.responseStatus ?? 200;
  const description = z.globalRegistry.get(contract.response)?.description ?? 'OK';
  const names = [
    ...RATE_LIMIT_HEADERS,
    ...(DATA_VERSION_ROUTES.has(route.name) ? (['X-Data-Version'] as const) : []),
  ];
  if (status === 204) return { description, headers: headers(names) };
  const examples = examplesOf(contract.examples, (e) => e.response);
  const type = contract.responseMediaType ?? 'application/json';
  const whole = contract.responseMediaType ? { type: 'string' } : json(contract.response);
  const schema = contract.fieldSelection
    ? { anyOf: [whole, cutByFields(whole, contract.fieldSelection)] }
    : whole;
  return { description, headers: headers(names), content: { [type]: { schema, examples } } };
}

/** An object schema, or a nullable one, with none of its own fields required. */
function anyFields(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const s = schema as JsonSchema;
  if (Array.isArray(s.anyOf)) return { ...s, anyOf: s.anyOf.map(anyFields) };
  if (s.type !== 'object' || !s.properties) return s;
  const { required: _all, ...rest } = s;
  return rest;
}

/**
 * What an answer cut by `fields` is (functions/lib/ip/fields.ts selectFields): the fields in
 * `always`, and any of the others; a group (an object field) with any of its own fields. Its own
 * schema beside the whole answer's (anyOf), so that a validator, or a client generated from this
 * document, takes both.
 */
function cutByFields(whole: JsonSchema, selection: NonNullable<RouteContract['fieldSelection']>): JsonSchema {
  const cut = (item: JsonSchema): JsonSchema => {
    const properties = Object.fromEntries(
      Object.entries((item.properties ?? {}) as Record<string, unknown>).map(([k, v]) => [k, anyFields(v)]),
    );
    return { ...item, properties, required: [...selection.always] };
  };
  if (!selection.items) return cut(whole);
  const list = (whole.properties as Record<string, JsonSchema>)[selection.items] as JsonSchema;
  return {
    ...whole,
    properties: {
      ...(whole.properties as Record<string, unknown>),
      [selection.items]: { ...list, items: cut(list.items as JsonSchema) },
    },
  };
}

function operation(route: KeyRoute, contract: RouteContract) {
  if (Object.keys(contract.examples).length === 0) throw new Error(`route ${route.name} has no example`);
  // One set of samples per request media type (a list job as JSON, as a form and as CSV).
  const byType = new Map<string, RouteExample>();
  for (const e of Object.values(contract.examples))
    if (!byType.has(e.contentType ?? '')) byType.set(e.contentType ?? '', e);
  const samples = [...byType.values()]
    .map((e) => {
      const code = samplesMarkdown(codeSamples(route, contract, e));
      return byType.size > 1 ? `#### ${e.summary}\n\n${code}` : code;
    })
    .join('\n\n');
  const keyLine =
    route.auth === 'publishable'
      ? 'publishable (origin-locked), from browsers'
      : 'secret (`Authorization: Bearer`), from your backend only';
  const responses: Record<string, unknown> = {
    [String(contract.responseStatus ?? 200)]: successResponse(route, contract),
  };
  // A redirect the route answers in place of its success (counted like it: X-RateLimit-*).
  if (contract.redirect)
    responses['302'] = {
      description: contract.redirect,
      headers: headers(['Location', ...RATE_LIMIT_HEADERS]),
    };
  for (const [status, codes] of operationErrors(route, contract)) {
    const extra: (keyof typeof HEADERS)[] = [];
    if (
      codes.includes('rate_limit_exceeded') ||
      status === 503 ||
      codes.includes('idempotency_key_in_progress')
    )
      extra.push('Retry-After');
    if (codes.includes('monthly_limit_exceeded')) extra.push('X-Monthly-Remaining');
    const response = errorResponse(codes, extra, contract.errorMessages);
    const ordered = {
      'X-Request-Id': response.headers['X-Request-Id'],
      ...rateLimitHeadersOf(codes),
      ...response.headers,
    };
    responses[String(status)] = { ...response, headers: ordered };
  }
  const unexpected = errorResponse(UNEXPECTED_CODES, ['Retry-After']);
  responses.default = { ...unexpected, description: `Unexpected failure:\n${unexpected.description}` };
  const body = requestBody(contract);
  return {
    tags: [route.tag],
    operationId: route.name,
    summary: route.summary,
    description: `**Key:** ${keyLine}. **Billing:** ${describeBilling(route)}.\n\n${samples}`,
    security: route.auth === 'publishable' ? [{ publishableKey: [] }] : [{ secretKey: [] }],
    parameters: parameters(contract),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/** The route that serves this document (GET /v1/openapi.json): it is shown as itself, not from a contract. */
const DOCUMENT_ROUTE = 'openapi';

/** GET /v1/openapi.json: served without a key. */
function publicOperation(route: OpenRoute) {
  return {
    tags: [route.tag],
    operationId: route.name,
    summary: route.summary,
    description: `**Key:** none. **Billing:** not billed.\n\n**curl**\n\n\`\`\`bash\ncurl "$NETINTEL_URL${route.path}"\n\`\`\``,
    security: [],
    responses: {
      200: {
        description: 'This document.',
        headers: headers([]),
        content: { 'application/json': { schema: { type: 'object' } } },
      },
    },
  };
}

/** A dashboard route: its session (cookie and X-CSRF-Token), schemas and refusals; never billed. */
function dashboardOperation(route: SessionRoute | OpenRoute, contract: DashboardContract) {
  const status = contract.responseStatus ?? 200;
  const answersSignedOut = route.auth === 'session' && route.answersSignedOut === true;
  // A route that answers signed-out calls (GET /v1/dashboard/session) refuses none of them.
  const sessionCodes: ErrorCode[] =
    route.auth !== 'session' || answersSignedOut
      ? []
      : route.method === 'GET'
        ? ['session_required']
        : ['session_required', 'csrf_token_invalid'];
  const codes: ErrorCode[] = [
    ...sessionCodes,
    ...(contract.body ? (['invalid_json'] as const) : []),
    ...(contract.errors ?? []),
  ];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes))
    byStatus.set(ERROR_CODES[code], [...(byStatus.get(ERROR_CODES[code]) ?? []), code]);
  const responses: Record<string, unknown> = {
    [String(status)]:
      status === 204 || !contract.response
        ? { description: 'Done.', headers: headers([]) }
        : {
            description: 'OK',
            headers: headers([]),
            content: { 'application/json': { schema: json(contract.response) } },
          },
  };
  for (const [code, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(code)] = errorResponse(list, code === 429 ? ['Retry-After'] : []);
  }
  const params = contract.params
    ? Object.keys((json(contract.params) as { properties?: object }).properties ?? {}).map((name) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      }))
    : [];
  return {
    tags: [route.tag],
    operationId: route.name,
    summary: route.summary,
    description: answersSignedOut
      ? '**Session:** the dashboard\'s session cookie when there is one; without a live session the answer is `{"signedIn": false}`, not a 401. **Billing:** not billed.'
      : route.auth === 'session'
        ? "**Session:** the dashboard's session cookie; a POST, PUT or DELETE also sends its X-CSRF-Token. **Billing:** not billed."
        : '**Session:** none (this opens one). **Billing:** not billed.',
    // `{}` makes the session optional (OpenAPI security requirement alternatives).
    security: answersSignedOut
      ? [{ dashboardSession: [] }, {}]
      : route.auth === 'session'
        ? [{ dashboardSession: [] }]
        : [],
    parameters: params,
    ...(contract.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: json(contract.body, 'input') } },
          },
        }
      : {}),
    responses,
  };
}

/** A route's operation, by who may call it: a key route, the document itself, or a dashboard route. */
function operationOf(route: Route, contract: RouteContract | DashboardContract) {
  if (isKeyRoute(route)) {
    if (!('examples' in contract)) throw new Error(`route ${route.name} has no example`);
    return operation(route, contract);
  }
  if (route.auth === 'none' && route.name === DOCUMENT_ROUTE) return publicOperation(route);
  return dashboardOperation(route, contract);
}

/**
 * The OpenAPI 3.1 document of the route table (functions/routes.ts), from each route's zod contract
 * (functions/contracts.ts) and, for the key routes, their examples. Operations are in table order.
 */
export function buildOpenApi(
  routes: readonly Route[],
  contracts: Readonly<Record<string, RouteContract | DashboardContract>>,
  serverUrl = '/',
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const contract = contracts[route.name];
    if (!contract) throw new Error(`route ${route.name} has no contract`);
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationOf(route, contract);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'netintel API',
      version: '1.0.0',
      description: apiGuide(routes),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: serverUrl, description: 'This deployment' }],
    tags: apiTags(),
    paths,
    components: {
      schemas: { Error: json(ErrorSchema) },
      headers: HEADERS,
      securitySchemes: {
        publishableKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Api-Key',
          description:
            'Publishable key (`ni_pub_…`), locked to the origins allowed for it; for browser code. ' +
            'On GET /v1/geo it may also be sent as `?key=`.',
        },
        secretKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'Secret key (`ni_sec_…`) as `Authorization: Bearer <key>`; for your backend only.',
        },
        dashboardSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'netintel_session',
          description:
            'The dashboard session (HttpOnly, SameSite=Strict), opened from an e-mailed sign-in link; changes also send X-CSRF-Token.',
        },
      },
    },
  };
}
