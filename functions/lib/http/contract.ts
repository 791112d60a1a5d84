import type * as z from 'zod';
import type { ErrorCode } from './errors.js';

/**
 * A route's request and response schemas: handlers validate with them (functions/lib/http/validate.ts,
 * the one mapping from zod issues to error codes), OpenAPI is built from them.
 */
export interface RouteContract {
  params?: z.ZodType;
  query?: z.ZodType;
  /** Request headers the route reads besides the key (e.g. Idempotency-Key). */
  headers?: z.ZodType;
  body?: z.ZodType;
  /** Request media types other than application/json (e.g. text/csv for list jobs). */
  bodyMediaTypes?: string[];
  /** The 400 codes validating `params`, `query` and `body` with these schemas can answer. */
  requestErrors?: readonly ErrorCode[];
  response: z.ZodType;
  responseStatus?: number;
  /** Response media type when it is not JSON (the results CSV). */
  responseMediaType?: string;
}
