import { z } from 'zod';
import type { RouteContract } from '../lib/http/contract.js';

export const contract: RouteContract = {
  response: z.object({}).describe('Not implemented yet: answers 501 not_implemented.'),
};
