import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  errors: ['geofeed_not_found'],
  response: z.string().describe('The geofeed as uploaded (RFC 8805 CSV).'),
  responseMediaType: 'text/csv',
  examples,
};
