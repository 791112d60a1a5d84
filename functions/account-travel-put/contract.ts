import { ETAG_NOTE, RulesChangeHeaders, TravelSettingsViewSchema } from '../lib/accounts/rules-schema.js';
import type { RouteContract } from '../lib/http/contract.js';
import { TravelSettingsSchema } from '../lib/risk/travel-settings.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const TravelPutBody = TravelSettingsSchema;

export const contract: RouteContract = {
  body: TravelPutBody,
  headers: RulesChangeHeaders,
  requestErrors: ['invalid_field'],
  errors: ['rules_changed'],
  response: TravelSettingsViewSchema.check(
    z.describe(`The account's impossible-travel settings now in force. ${ETAG_NOTE}`),
  ),
  examples,
};
