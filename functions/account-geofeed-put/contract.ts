import { GeofeedViewSchema } from '../lib/accounts/rules-schema.js';
import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  body: z
    .string()
    .check(
      z.describe(
        'RFC 8805 rows, ip_prefix,alpha2code,region,city,postal_code: at most 10,000 prefixes and 1 MB. ' +
          'All or nothing: a bad row refuses the feed (400 invalid_geofeed, each bad row in `lines`).',
      ),
    ),
  bodyMediaTypes: ['text/csv'],
  // The body is CSV, read by the handler (not a JSON body validated by a schema).
  textBody: true,
  errors: ['invalid_geofeed', 'invalid_body', 'unsupported_media_type', 'body_too_large'],
  response: GeofeedViewSchema,
  examples,
};
