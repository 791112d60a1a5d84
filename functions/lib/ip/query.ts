import * as z from 'zod';

// Query parameters shared by the IP routes (GET /v1/geo, GET /v1/lookup/{ip}), validated by their
// contracts (functions/lib/http/validate.ts: another value is 400 invalid_query).

/**
 * `include`: `hostname`, or nothing. An empty `include=` is read as absent (no hostname), as a form
 * that leaves the field blank sends it; the document publishes the one value, `hostname`.
 */
export const IncludeSchema = z
  .preprocess(
    (value) => (value === '' ? undefined : value),
    z.enum(['hostname'], { error: 'include takes the value hostname.' }).optional(),
  )
  .describe(
    'hostname: add a reverse-DNS (PTR) lookup (short timeout; null on failure). An empty include= is the same as none.',
  );
