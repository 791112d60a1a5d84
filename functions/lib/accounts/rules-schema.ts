import { EmailRulesSchema } from '../email/rules.js';
import { TravelSettingsSchema } from '../risk/travel-settings.js';
import * as z from '../zod.js';

// What the account-rules routes answer (GET/PUT /v1/account/travel, /v1/account/email-rules,
// /v1/account/geofeed): the rules in force and who last changed them.

const changed = {
  updatedAt: z
    .nullable(z.iso.datetime())
    .check(z.describe('When these rules were last changed (ISO 8601 UTC); null while the defaults apply.')),
  updatedBy: z
    .nullable(z.string())
    .check(
      z.describe(
        'Who changed them: key:<keyId>, dashboard:<e-mail of the signed-in person> or admin; null while the defaults apply.',
      ),
    ),
};

export const TravelSettingsViewSchema = z
  .extend(z.required(TravelSettingsSchema), changed)
  .check(z.describe("The account's impossible-travel settings in force."));
export type TravelSettingsView = z.infer<typeof TravelSettingsViewSchema>;

export const EmailRulesViewSchema = z
  .object({
    ...EmailRulesSchema.shape,
    entries: z
      .number()
      .check(z.int(), z.nonnegative(), z.describe('Domains, MX hosts and TLDs listed, in all.')),
    ...changed,
  })
  .check(z.describe("The account's email rules in force."));

export const GeofeedViewSchema = z
  .object({
    prefixes: z.number().check(z.int(), z.positive(), z.describe('Prefixes of the feed.')),
    bytes: z.number().check(z.int(), z.positive(), z.describe('Size of the CSV as sent.')),
    updatedAt: changed.updatedAt.def.innerType,
    updatedBy: changed.updatedBy.def.innerType,
  })
  .check(z.describe("The account's private geofeed now in force."));
