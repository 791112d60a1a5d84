import { EmailRulesSchema } from '../email/rules.js';
import { TravelSettingsSchema } from '../risk/travel-settings.js';
import * as z from '../zod.js';

// What the account-rules routes answer (GET/PUT /v1/account/travel, /v1/account/email-rules,
// /v1/account/geofeed): the rules in force and who last changed them; and the If-Match header their
// changes take (docs/rules.md: Saving from two places at once).

/** The longest If-Match taken: a tag of ours is under 30 characters. */
export const IF_MATCH_MAX = 200;

/** `*`, or one entity tag: printable ASCII but the double quote and space, in double quotes, weak (`W/"…"`, which never matches) or not. */
const ENTITY_TAG = /^(?:\*|(?:W\/)?"[\x21\x23-\x7e]*")$/;

/** The ETag header, as the descriptions of these routes name it (the contract has no response headers). */
export const ETAG_NOTE =
  "The answer's ETag header names this state of the rules: send it back as If-Match with a change.";

/** The headers of PUT /v1/account/travel, /v1/account/email-rules, /v1/account/geofeed and DELETE /v1/account/geofeed. */
/**
 * The media types PUT /v1/account/geofeed takes its RFC 8805 CSV in (any other is 415): text/plain
 * is read as text/csv, as a feed saved from an editor or sent by a tool's default arrives.
 */
export const GEOFEED_MEDIA_TYPES = ['text/csv', 'text/plain'] as const;

export const RulesChangeHeaders = z.object({
  'If-Match': z
    .optional(
      z.string().check(
        z.refine((value) => value.length <= IF_MATCH_MAX && ENTITY_TAG.test(value), {
          error: `If-Match must be * or one entity tag in double quotes (the ETag of your last read), at most ${IF_MATCH_MAX} characters.`,
        }),
        z.meta({ maxLength: IF_MATCH_MAX }),
      ),
    )
    .check(
      z.describe(
        'The ETag of the read (or save) this change is based on: the change is made only if the rules still ' +
          'have it, else 412 rules_changed and nothing is applied (read again and apply the change to what is ' +
          'there now). Compared strongly: a weak tag (W/"…") never matches. `"defaults"` names rules never set ' +
          '(no geofeed). Without it, or with `*`, the last change wins.',
      ),
    ),
});

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
