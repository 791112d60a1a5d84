import * as z from 'zod';
import { EmailRulesSchema } from '../email/rules.js';
import { TravelSettingsSchema } from '../risk/travel-settings.js';

// What the account-rules routes answer (GET/PUT /v1/account/travel, /v1/account/email-rules,
// /v1/account/geofeed): the rules in force and who last changed them.

const changed = {
  updatedAt: z.iso
    .datetime()
    .nullable()
    .describe('When these rules were last changed (ISO 8601 UTC); null while the defaults apply.'),
  updatedBy: z
    .string()
    .nullable()
    .describe(
      'Who changed them: key:<keyId>, dashboard:<e-mail of the signed-in person> or admin; null while the defaults apply.',
    ),
};

export const TravelSettingsViewSchema = TravelSettingsSchema.required()
  .extend(changed)
  .describe("The account's impossible-travel settings in force.");
export type TravelSettingsView = z.infer<typeof TravelSettingsViewSchema>;

export const EmailRulesViewSchema = z
  .object({
    ...EmailRulesSchema.shape,
    entries: z.number().int().nonnegative().describe('Domains, MX hosts and TLDs listed, in all.'),
    ...changed,
  })
  .describe("The account's email rules in force.");

export const GeofeedViewSchema = z
  .object({
    prefixes: z.number().int().positive().describe('Prefixes of the feed.'),
    bytes: z.number().int().positive().describe('Size of the CSV as sent.'),
    updatedAt: changed.updatedAt.unwrap(),
    updatedBy: changed.updatedBy.unwrap(),
  })
  .describe("The account's private geofeed now in force.");
