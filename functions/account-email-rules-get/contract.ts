import { EmailRulesViewSchema, ETAG_NOTE } from '../lib/accounts/rules-schema.js';
import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  response: EmailRulesViewSchema.check(z.describe(`The account's email rules in force. ${ETAG_NOTE}`)),
  examples,
};
