import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  response: z.null().check(z.describe('No body.')),
  responseStatus: 204,
  examples,
};
