import { RulesChangeHeaders } from '../lib/accounts/rules-schema.js';
import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  headers: RulesChangeHeaders,
  // invalid_field: a malformed If-Match.
  errors: ['invalid_field', 'rules_changed'],
  response: z.null().check(z.describe('No body; ETag "defaults", the tag of no geofeed.')),
  responseStatus: 204,
  examples,
};
