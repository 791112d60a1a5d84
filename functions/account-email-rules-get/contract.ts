import { EmailRulesViewSchema } from '../lib/accounts/rules-schema.js';
import type { RouteContract } from '../lib/http/contract.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  response: EmailRulesViewSchema,
  examples,
};
