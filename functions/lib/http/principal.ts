import * as z from 'zod';

// What the authorizer learned about the caller. API Gateway hands the authorizer's context to the
// function as strings, so every field is coerced from its string form here, once.
export const PrincipalSchema = z.object({
  accountId: z.string().min(1),
  keyId: z.string().min(1),
  keyType: z.enum(['publishable', 'secret']),
  plan: z.string().min(1),
  perMinute: z.coerce.number().int().nonnegative(),
  monthlyCap: z.coerce.number().int().nonnegative(),
  includesSecurity: z.preprocess((v) => v === true || v === 'true', z.boolean()),
  /** The request's origin when it matched the key's allowed list (publishable keys only). */
  allowedOrigin: z.string().default(''),
  /** The account's custom hostname the request arrived on, if any (docs/custom-hostnames.md). */
  customHostname: z.string().min(1).optional(),
  /** `inactive`: the hostname is known but not serving; the handler answers 421 hostname_not_active. */
  hostStatus: z.enum(['active', 'inactive']).optional(),
  /** `dashboard`: a dashboard session on a list-job route instead of a key (docs/dashboard.md). */
  channel: z.literal('dashboard').optional(),
  /** The dashboard's signed-in person (their e-mail), on the `dashboard` channel only. */
  member: z.string().min(1).optional(),
  /** The version of the account's own rules (accounts/account-rules.ts); absent when it has none. */
  rulesVersion: z.string().min(1).optional(),
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
  };
}
