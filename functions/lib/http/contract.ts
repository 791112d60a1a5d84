import type * as z from 'zod';

/** A route's request and response schemas: handlers validate with them, OpenAPI is built from them. */
export interface RouteContract {
  params?: z.ZodType;
  query?: z.ZodType;
  /** Request headers the route reads besides the key (e.g. Idempotency-Key). */
  headers?: z.ZodType;
  body?: z.ZodType;
  /** Request media types other than application/json (e.g. text/csv for list jobs). */
  bodyMediaTypes?: string[];
  response: z.ZodType;
  responseStatus?: number;
  /** Response media type when it is not JSON (the results CSV). */
  responseMediaType?: string;
}
