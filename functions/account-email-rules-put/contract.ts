import { EmailRulesViewSchema } from '../lib/accounts/rules-schema.js';
import { EmailRulesSchema } from '../lib/email/rules.js';
import type { RouteContract } from '../lib/http/contract.js';
import { examples } from './examples.js';

export const EmailRulesPutBody = EmailRulesSchema;

export const contract: RouteContract = {
  body: EmailRulesPutBody,
  requestErrors: ['invalid_field'],
  response: EmailRulesViewSchema,
  examples,
};
