import { ETAG_NOTE, TravelSettingsViewSchema } from '../lib/accounts/rules-schema.js';
import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  response: TravelSettingsViewSchema.check(
    z.describe(`The account's impossible-travel settings in force. ${ETAG_NOTE}`),
  ),
  examples,
};
