import type { RouteContract } from '../lib/http/contract.js';
import { EndpointListSchema } from '../lib/webhooks/schema.js';
import { examples } from './examples.js';

export const contract: RouteContract = { response: EndpointListSchema, examples };
