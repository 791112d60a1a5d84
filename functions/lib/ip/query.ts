import * as z from '../zod.js';

// Query parameters shared by the IP routes (GET /v1/geo, GET /v1/lookup/{ip}), validated by their
// contracts (functions/lib/http/validate.ts: another value is 400 invalid_query).

/**
 * `include`: `hostname`, or nothing. An empty `include=` is read as absent (no hostname), as a form
 * that leaves the field blank sends it; the document publishes the one value, `hostname` (a pipe
 * from a transform, zod's preprocess: the document shows what follows the transform).
 */
export const IncludeSchema = z
  .pipe(
    z.transform((value: unknown) => (value === '' ? undefined : value)),
    z.optional(z.enum(['hostname'], { error: 'include takes the value hostname.' })),
  )
  .check(
    z.describe(
      'hostname: add a reverse-DNS (PTR) lookup (short timeout; null on failure). An empty include= is the same as none.',
    ),
  );

const FIELDS_TEXT =
  'Only these fields in the answer (besides ip, and found on the lookups): comma-separated top-level names, ' +
  'or group.field one level down (security.isVpn, locale.languages). Unknown names: 400 invalid_fields. Billing ' +
  'is the same; fields not asked for are not computed.';

/** `fields` as a query parameter (GET /v1/geo, GET /v1/lookup/{ip}): checked by fields.ts. */
export const FieldsQuerySchema = z
  .optional(z.string())
  .check(z.describe(`${FIELDS_TEXT} Example: country,city,asn.`));

/** `fields` in the body of POST /v1/lookup: the same names, as one string or an array. */
export const FieldsBodySchema = z
  .optional(z.union([z.string(), z.array(z.string())]))
  .check(z.describe(`${FIELDS_TEXT} Example: "country,asn" or ["country", "asn"].`));
