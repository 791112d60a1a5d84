import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { UserIdSchema } from '../lib/risk/user-id.js';

export const BaselineDeleteBody = z.object({ userId: UserIdSchema });

export const contract: RouteContract = {
  body: BaselineDeleteBody,
  response: z.null().describe('No content: the baseline is gone, whether or not one existed.'),
  responseStatus: 204,
};
