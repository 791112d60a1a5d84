import type { RouteContract } from '../lib/http/contract.js';
import { UserIdBody } from '../lib/risk/user-id.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const BaselineDeleteBody = UserIdBody;

export const contract: RouteContract = {
  body: BaselineDeleteBody,
  requestErrors: ['missing_field', 'invalid_field', 'invalid_user_id'],
  response: z.null().check(z.describe('No content: the baseline is gone, whether or not one existed.')),
  responseStatus: 204,
  examples,
};
