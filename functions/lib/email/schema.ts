import * as z from '../zod.js';
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
  status: MxStatusSchema.check(
    z.describe(
      'found (MX records exist), implicit (no MX but A/AAAA), none (neither), null_mx (domain accepts no mail), ' +
        'no_domain (domain does not exist), unknown (lookup failed or timed out).',
    ),
  ),
  host: z
    .nullable(z.string())
    .check(z.describe('Lowest-preference MX host when status is found, otherwise null.')),
});

export const EmailCheckResultSchema = z.object({
  email: z.string().check(z.describe('The address as submitted, unchanged.')),
  domain: z
    .nullable(z.string())
    .check(
      z.describe('Lowercased domain, internationalized domains in punycode; null when syntaxValid is false.'),
    ),
  syntaxValid: z.boolean().check(z.describe('Syntax only, not a deliverability check.')),
  isDisposable: z
    .boolean()
    .check(
      z.describe(
        'True when the domain matches a known disposable provider directly, through a parent domain, or ' +
          'through a mail server known to serve disposable domains. Always false when syntaxValid is false, ' +
          "for a privacy-relay alias, and for a domain or mail server on the account's allow list.",
      ),
    ),
  normalizedEmail: z
    .nullable(z.string())
    .check(z.describe('Trimmed, lowercased, domain in punycode; null when syntaxValid is false.')),
  canonicalEmail: z
    .nullable(z.string())
    .check(
      z.describe(
        'normalizedEmail with any +tag removed; for gmail.com also without dots in the local part, and ' +
          'googlemail.com mapped to gmail.com. Null when syntaxValid is false.',
      ),
    ),
  disposableSource: z
    .nullable(DisposableSourceSchema)
    .check(
      z.describe(
        'Why isDisposable is true: list, parent_domain or mx_host. Null when isDisposable is false.',
      ),
    ),
  isFreeProvider: z
    .boolean()
    .check(z.describe('Domain is a consumer mailbox provider. Informational; never changes the verdict.')),
  isRelayAlias: z
    .boolean()
    .check(
      z.describe(
        'The address is a privacy-relay alias (Apple Hide My Email, Firefox Relay, DuckDuckGo Email ' +
          'Protection, SimpleLogin, addy.io, Proton Pass): it forwards to a real mailbox, so it is never ' +
          "disposable nor a typo. Changes the verdict only through the account's relayAliases rule.",
      ),
    ),
  relayProvider: z
    .nullable(z.string())
    .check(z.describe('The relay service, e.g. "Firefox Relay", when isRelayAlias is true; otherwise null.')),
  isRoleAccount: z
    .boolean()
    .check(z.describe('Local part is a role address (admin, info, noreply and similar).')),
  didYouMean: z
    .nullable(z.string())
    .check(
      z.describe(
        "Likely typo correction of the whole address; never for a privacy-relay alias nor a domain on the account's allow list.",
      ),
    ),
  mx: z.nullable(MxResultSchema).check(z.describe('Null when syntaxValid is false.')),
  verdict: VerdictSchema.check(z.describe('The most severe condition among reasons.')),
  reasons: z
    .array(ReasonCodeSchema)
    .check(z.describe('Every condition hit, most severe first; empty when verdict is accept.')),
});

export type EmailCheckResult = z.infer<typeof EmailCheckResultSchema>;
