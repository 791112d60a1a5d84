import { TravelSettingsViewSchema } from '../lib/accounts/rules-schema.js';
import type { RouteContract } from '../lib/http/contract.js';
import { TravelSettingsSchema } from '../lib/risk/travel-settings.js';
import { examples } from './examples.js';

export const TravelPutBody = TravelSettingsSchema;

export const contract: RouteContract = {
  body: TravelPutBody,
  requestErrors: ['invalid_field'],
  response: TravelSettingsViewSchema,
  examples,
};
