import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { UserIdBody } from '../lib/risk/user-id.js';

export const BaselineDeleteBody = UserIdBody;

/** The body's shape and types alone: missing_field / invalid_field before the userId rules. */
export const BaselineDeleteShape = z.object({ userId: z.string() });

export const contract: RouteContract = {
  body: BaselineDeleteBody,
  response: z.null().describe('No content: the baseline is gone, whether or not one existed.'),
  responseStatus: 204,
};
