import type * as z from '../zod.js';
import type { ErrorCode } from './errors.js';

/**
 * One exchange with a route: a request and the answer the service gives it. They are the examples
 * and code samples of the API reference (/docs), and test/integration/docs.cases.ts replays each
 * against the local stack, so an example cannot drift from what the service answers.
 */
export interface RouteExample {
  summary: string;
  /** Path parameters, by name. */
  params?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, string>>;
  /** Request headers besides the key (e.g. Idempotency-Key). */
  headers?: Readonly<Record<string, string>>;
  /** The JSON body; for a `contentType` body, its text. */
  body?: unknown;
  /** Media type of `body` when it is not application/json (e.g. text/csv). */
  contentType?: string;
  /**
   * The file the code samples read a non-JSON body from, or save a non-JSON answer to (default:
   * the `filename` query parameter or list.csv; results.csv).
   */
  file?: string;
  /** The response body: JSON, or the text of `responseMediaType`; absent for a 204. */
  response?: unknown;
}

/**
 * A route's request and response schemas: handlers validate with them (functions/lib/http/validate.ts,
 * the one mapping from zod issues to error codes), OpenAPI is built from them. Typed on `zod/mini`'s
 * schema type (../zod.ts), which a classic zod schema satisfies as well.
 */
export interface RouteContract {
  params?: z.ZodMiniType;
  query?: z.ZodMiniType;
  /** Request headers the route reads besides the key (e.g. Idempotency-Key). */
  headers?: z.ZodMiniType;
  body?: z.ZodMiniType;
  /** Request media types other than application/json (e.g. text/csv for list jobs). */
  bodyMediaTypes?: string[];
  /**
   * The body is text of `bodyMediaTypes` only, never JSON (the private geofeed's CSV): `body`
   * describes that text, and the route answers no `invalid_json`.
   */
  textBody?: true;
  /** The 400 codes validating `params`, `query` and `body` with these schemas can answer. */
  requestErrors?: readonly ErrorCode[];
  /**
   * Codes the route's own input and run answer besides `requestErrors` (job_not_found,
   * location_unavailable, ...). The codes every route of its kind answers (key, limits, JSON body)
   * come from the route table: functions/api-reference/operation-errors.ts.
   */
  errors?: readonly ErrorCode[];
  /**
   * The message the API reference shows for a code where this route words it otherwise than the
   * catalogue's example (functions/api-reference/error-docs.ts): `invalid_ip` of a path, not of a batch.
   */
  errorMessages?: Readonly<Partial<Record<ErrorCode, string>>>;
  response: z.ZodMiniType;
  responseStatus?: number;
  /** Response media type when it is not JSON (the results CSV). */
  responseMediaType?: string;
  /**
   * What a `302` the route answers instead of its success leads to (a list job's results over 4 MB:
   * a presigned URL in `Location`); absent when the route never redirects.
   */
  redirect?: string;
  /**
   * The route's answer may be cut by `fields` (functions/lib/ip/fields.ts selectFields): the fields
   * every such answer keeps, and where the cut answers are (`results`: each item of that list).
   */
  fieldSelection?: { readonly always: readonly string[]; readonly items?: 'results' };
  /** Real exchanges, by name; the first is the default one of the reference and its code samples. */
  examples: Readonly<Record<string, RouteExample>>;
}
