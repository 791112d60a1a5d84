import * as z from 'zod';
import type { Route } from '../../routes.js';
import type { RouteContract } from './contract.js';
import { ERROR_CODES } from './errors.js';

export const ATTRIBUTION =
  'IP geolocation: DB-IP Lite (https://db-ip.com), licensed CC BY 4.0. ASN data: @ip-location-db/asn ' +
  '(DB-IP, RouteViews, NRO), CC BY 4.0. Postal codes and subdivision names: GeoNames (https://www.geonames.org), ' +
  'licensed CC BY 4.0.';

/** The body of every non-2xx response (README: Errors). */
export const ErrorSchema = z.object({
  error: z.enum(Object.keys(ERROR_CODES) as [string, ...string[]]).describe('Stable machine-readable code.'),
  message: z.string().describe('Human-readable; may change.'),
});

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { unrepresentable: 'any', io: 'output' });

function operation(route: Route, contract: RouteContract) {
  const parameters: unknown[] = [];
  for (const [where, schema] of [
    ['path', contract.params],
    ['query', contract.query],
    ['header', contract.headers],
  ] as const) {
    if (!schema) continue;
    const js = json(schema) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      parameters.push({
        name,
        in: where,
        required: where === 'path' || (js.required ?? []).includes(name),
        schema: s,
      });
    }
  }
  const security = route.keyType === 'publishable' ? [{ publishableKey: [] }] : [{ secretKey: [] }];
  const okStatus = String(contract.responseStatus ?? 200);
  const okContent = contract.responseMediaType
    ? { [contract.responseMediaType]: { schema: { type: 'string' } } }
    : { 'application/json': { schema: json(contract.response) } };
  const requestBody = contract.body
    ? {
        required: true,
        content: Object.fromEntries([
          ['application/json', { schema: json(contract.body) }],
          ...(contract.bodyMediaTypes ?? []).map((t) => [t, { schema: { type: 'string' } }]),
        ]),
      }
    : undefined;
  return {
    operationId: route.name,
    summary: route.summary,
    description: `Billing: ${describeBilling(route)}.`,
    security,
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [okStatus]:
        okStatus === '204'
          ? { description: 'Done.' }
          : { description: contract.response.description ?? 'OK', content: okContent },
      default: {
        description: 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
}

function describeBilling(route: Route): string {
  const b = route.billing;
  if (b.per === 'none') return 'not billed';
  if (b.per === 'call') return `1 request (${b.meter})`;
  if (b.per === 'item') return `1 request per element of ${b.field} (${b.meter}), duplicates included`;
  return `1 request per distinct element of ${b.field} (${b.meter})`;
}

/** The OpenAPI 3.1 document of the route table, from the routes' zod contracts. */
export function buildOpenApi(
  routes: readonly Route[],
  contracts: Record<string, RouteContract>,
  serverUrl = '/',
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const contract = contracts[route.name];
    if (!contract) throw new Error(`route ${route.name} has no contract`);
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route, contract);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'netintel API',
      version: '1.0.0',
      description: `Visitor geolocation, IP lookup, email checks, signup scoring and impossible-travel detection.\n\n${ATTRIBUTION}`,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { Error: json(ErrorSchema) },
      securitySchemes: {
        publishableKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Api-Key',
          description: 'Origin-locked publishable key',
        },
        secretKey: { type: 'http', scheme: 'bearer', description: 'Secret key, backend only' },
      },
    },
  };
}
