import { ETAG_NOTE } from '../lib/accounts/rules-schema.js';
import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  errors: ['geofeed_not_found'],
  response: z
    .string()
    .check(
      z.describe(
        `The geofeed as uploaded (RFC 8805 CSV). ${ETAG_NOTE} The 404 of an account without one has ETag "defaults".`,
      ),
    ),
  responseMediaType: 'text/csv',
  examples,
};
