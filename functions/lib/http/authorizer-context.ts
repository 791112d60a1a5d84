import type { Principal } from './principal.js';

// The other half of principal.ts: what the authorizer hands API Gateway, read back by every function
// through PrincipalSchema. A module of its own, so the authorizer, which only writes it, does not
// build the schema at its cold start.

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
