import * as z from '../zod.js';

// What the authorizer learned about the caller. API Gateway hands the authorizer's context to the
// function as strings, so every field is coerced from its string form here, once.
export const PrincipalSchema = z.object({
  accountId: z.string().check(z.minLength(1)),
  keyId: z.string().check(z.minLength(1)),
  keyType: z.enum(['publishable', 'secret']),
  plan: z.string().check(z.minLength(1)),
  perMinute: z.coerce.number().check(z.int(), z.nonnegative()),
  monthlyCap: z.coerce.number().check(z.int(), z.nonnegative()),
  includesSecurity: z.pipe(
    z.unknown(),
    z.transform((v) => v === true || v === 'true'),
  ),
  /** The request's origin when it matched the key's allowed list (publishable keys only). */
  allowedOrigin: z._default(z.string(), ''),
  /** The account's custom hostname the request arrived on, if any (docs/custom-hostnames.md). */
  customHostname: z.optional(z.string().check(z.minLength(1))),
  /** `inactive`: the hostname is known but not serving; the handler answers 421 hostname_not_active. */
  hostStatus: z.optional(z.enum(['active', 'inactive'])),
  /** `dashboard`: a dashboard session on a list-job route instead of a key (docs/dashboard.md). */
  channel: z.optional(z.literal('dashboard')),
  /** The dashboard's signed-in person (their e-mail), on the `dashboard` channel only. */
  member: z.optional(z.string().check(z.minLength(1))),
  /** The version of the account's own rules (accounts/account-rules.ts); absent when it has none. */
  rulesVersion: z.optional(z.string().check(z.minLength(1))),
  /**
   * `test`: a test key (docs/test-mode.md); accountId is then the account's test partition
   * (test-mode/mode.ts), and the answers come from the fixed test data.
   */
  mode: z.optional(z.literal('test')),
});

export type Principal = z.infer<typeof PrincipalSchema>;

/** Flattens a principal into the string map an API Gateway authorizer context must be. */
export function toAuthorizerContext(p: Principal): Record<string, string> {
  return {
    accountId: p.accountId,
    keyId: p.keyId,
    keyType: p.keyType,
    plan: p.plan,
    perMinute: String(p.perMinute),
    monthlyCap: String(p.monthlyCap),
    includesSecurity: String(p.includesSecurity),
    // Only when there is one: gateway responses map it to Access-Control-Allow-Origin, and an
    // absent value leaves that header out (gateway-responses.ts).
    ...(p.allowedOrigin ? { allowedOrigin: p.allowedOrigin } : {}),
    ...(p.customHostname ? { customHostname: p.customHostname } : {}),
    ...(p.hostStatus ? { hostStatus: p.hostStatus } : {}),
    ...(p.channel ? { channel: p.channel } : {}),
    ...(p.member ? { member: p.member } : {}),
    ...(p.rulesVersion ? { rulesVersion: p.rulesVersion } : {}),
    ...(p.mode ? { mode: p.mode } : {}),
  };
}
