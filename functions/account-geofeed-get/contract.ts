import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  errors: ['geofeed_not_found'],
  response: z.string().check(z.describe('The geofeed as uploaded (RFC 8805 CSV).')),
  responseMediaType: 'text/csv',
  examples,
};
