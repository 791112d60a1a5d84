import { EmailRulesViewSchema, ETAG_NOTE, RulesChangeHeaders } from '../lib/accounts/rules-schema.js';
import { EmailRulesSchema } from '../lib/email/rules.js';
import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const EmailRulesPutBody = EmailRulesSchema;

export const contract: RouteContract = {
  body: EmailRulesPutBody,
  headers: RulesChangeHeaders,
  requestErrors: ['invalid_field'],
  errors: ['rules_changed'],
  response: EmailRulesViewSchema.check(z.describe(`The account's email rules now in force. ${ETAG_NOTE}`)),
  examples,
};
