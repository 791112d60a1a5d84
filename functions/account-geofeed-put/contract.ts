import {
  ETAG_NOTE,
  GEOFEED_MEDIA_TYPES,
  GeofeedViewSchema,
  RulesChangeHeaders,
} from '../lib/accounts/rules-schema.js';
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
  bodyMediaTypes: [...GEOFEED_MEDIA_TYPES],
  // The body is CSV, read by the handler (not a JSON body validated by a schema).
  textBody: true,
  headers: RulesChangeHeaders,
  // invalid_field: a malformed If-Match (the body is read by the handler, not validated by a schema).
  errors: [
    'invalid_geofeed',
    'invalid_body',
    'invalid_field',
    'unsupported_media_type',
    'body_too_large',
    'rules_changed',
  ],
  response: GeofeedViewSchema.check(z.describe(`The account's private geofeed now in force. ${ETAG_NOTE}`)),
  examples,
};
