import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  response: z.null().describe('No body.'),
  responseStatus: 204,
  examples,
};
