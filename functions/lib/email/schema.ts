import * as z from 'zod';
import { DISPOSABLE_SOURCES } from './disposable.js';
import { MX_STATUSES } from './mx-status.js';
import { REASON_CODES, VERDICTS } from './reasons.js';

// The email check result (docs/api.md: Email checks), used by the handlers for their responses,
// by the OpenAPI document, and by the property tests that check every result against it.

export const MxStatusSchema = z.enum(MX_STATUSES);
export const ReasonCodeSchema = z.enum(REASON_CODES);
export const VerdictSchema = z.enum(VERDICTS);
export const DisposableSourceSchema = z.enum(DISPOSABLE_SOURCES);

export const MxResultSchema = z.object({
  status: MxStatusSchema.describe(
    'found (MX records exist), implicit (no MX but A/AAAA), none (neither), null_mx (domain accepts no mail), ' +
      'no_domain (domain does not exist), unknown (lookup failed or timed out).',
  ),
  host: z.string().nullable().describe('Lowest-preference MX host when status is found, otherwise null.'),
});

export const EmailCheckResultSchema = z.object({
  email: z.string().describe('The address as submitted, unchanged.'),
  domain: z
    .string()
    .nullable()
    .describe('Lowercased domain, internationalized domains in punycode; null when syntaxValid is false.'),
  syntaxValid: z.boolean().describe('Syntax only, not a deliverability check.'),
  isDisposable: z
    .boolean()
    .describe(
      'True when the domain matches a known disposable provider directly, through a parent domain, or ' +
        'through a mail server known to serve disposable domains. Always false when syntaxValid is false, ' +
        "for a privacy-relay alias, and for a domain or mail server on the account's allow list.",
    ),
  normalizedEmail: z
    .string()
    .nullable()
    .describe('Trimmed, lowercased, domain in punycode; null when syntaxValid is false.'),
  canonicalEmail: z
    .string()
    .nullable()
    .describe(
      'normalizedEmail with any +tag removed; for gmail.com also without dots in the local part, and ' +
        'googlemail.com mapped to gmail.com. Null when syntaxValid is false.',
    ),
  disposableSource: DisposableSourceSchema.nullable().describe(
    'Why isDisposable is true: list, parent_domain or mx_host. Null when isDisposable is false.',
  ),
  isFreeProvider: z
    .boolean()
    .describe('Domain is a consumer mailbox provider. Informational; never changes the verdict.'),
  isRelayAlias: z
    .boolean()
    .describe(
      'The address is a privacy-relay alias (Apple Hide My Email, Firefox Relay, DuckDuckGo Email ' +
        'Protection, SimpleLogin, addy.io, Proton Pass): it forwards to a real mailbox, so it is never ' +
        "disposable nor a typo. Changes the verdict only through the account's relayAliases rule.",
    ),
  relayProvider: z
    .string()
    .nullable()
    .describe('The relay service, e.g. "Firefox Relay", when isRelayAlias is true; otherwise null.'),
  isRoleAccount: z.boolean().describe('Local part is a role address (admin, info, noreply and similar).'),
  didYouMean: z
    .string()
    .nullable()
    .describe(
      "Likely typo correction of the whole address; never for a privacy-relay alias nor a domain on the account's allow list.",
    ),
  mx: MxResultSchema.nullable().describe('Null when syntaxValid is false.'),
  verdict: VerdictSchema.describe('The most severe condition among reasons.'),
  reasons: z
    .array(ReasonCodeSchema)
    .describe('Every condition hit, most severe first; empty when verdict is accept.'),
});

export type EmailCheckResult = z.infer<typeof EmailCheckResultSchema>;
