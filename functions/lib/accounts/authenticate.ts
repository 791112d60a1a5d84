import type { Route } from '../../routes.js';
import { bindHost } from '../domains/binding.js';
import type { HostnameLookup } from '../domains/hostname.js';
import type { ErrorCode } from '../http/errors.js';
import type { Principal } from '../http/principal.js';
import type { AccountStore } from './account.js';
import { hashApiKey, isWellFormedKey } from './api-key.js';
import { isOriginAllowed, originOf } from './origins.js';

export type AuthDecision =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401 | 403; code: ErrorCode; message: string };

export interface AuthInput {
  route: Route;
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  /**
   * The request's host when it may be a custom hostname (domains/binding.ts hostCandidate), with
   * where to look it up. Absent: the base address.
   */
  host?: { hostname: string; lookup: HostnameLookup };
}

const deny = (status: 401 | 403, code: ErrorCode, message: string): AuthDecision => ({
  ok: false,
  status,
  code,
  message,
});

/** Keys the caller presented, with the channel each came through. */
function presentedKeys(input: AuthInput): { key: string; channel: 'bearer' | 'header' | 'query' }[] | string {
  const found: { key: string; channel: 'bearer' | 'header' | 'query' }[] = [];
  const auth = input.headers.authorization;
  if (auth !== undefined) {
    const m = /^Bearer (\S+)$/i.exec(auth.trim());
    if (!m) return 'The Authorization header must be "Bearer <secret key>".';
    found.push({ key: m[1]!, channel: 'bearer' });
  }
  const header = input.headers['x-api-key'];
  if (header !== undefined) found.push({ key: header.trim(), channel: 'header' });
  // Spec: the `key` query parameter is a fallback for GET /v1/geo only.
  const query = input.route.name === 'geo' ? input.query.key : undefined;
  if (query !== undefined) found.push({ key: query, channel: 'query' });
  return found;
}

/**
 * Spec, Authentication rules 1-5 and 7: who is calling, with which key type, from which origin, on
 * which hostname. 401 for a missing, malformed, unknown or revoked key; 403 for the wrong key type,
 * an origin that is not on a publishable key's list, or another account's custom hostname.
 */
export async function authenticate(input: AuthInput, store: AccountStore): Promise<AuthDecision> {
  const presented = presentedKeys(input);
  if (typeof presented === 'string') return deny(401, 'invalid_api_key', presented);
  const distinct = new Set(presented.map((p) => p.key));
  if (distinct.size === 0) return deny(401, 'invalid_api_key', 'No API key was sent.');
  if (distinct.size > 1) return deny(401, 'invalid_api_key', 'Send exactly one API key.');
  const key = presented[0]!.key;
  if (!isWellFormedKey(key)) return deny(401, 'invalid_api_key', 'The API key is not valid.');

  const hash = hashApiKey(key);
  const record = await store.getKeyByHash(hash);
  if (!record || record.revoked) {
    return deny(401, 'invalid_api_key', 'The API key is not valid.');
  }
  const expected = input.route.keyType;
  if (record.type !== expected) {
    return deny(
      403,
      'wrong_key_type',
      `This route takes a ${expected} key; a ${record.type} key was sent (spec rule 4).`,
    );
  }
  if (record.type === 'secret' && presented.some((p) => p.channel !== 'bearer')) {
    return deny(401, 'invalid_api_key', 'Send secret keys as "Authorization: Bearer <key>".');
  }
  if (record.type === 'publishable' && presented.some((p) => p.channel === 'bearer')) {
    return deny(401, 'invalid_api_key', 'Send publishable keys in the X-Api-Key header.');
  }

  const account = await store.getAccount(record.accountId);
  if (!account) return deny(401, 'invalid_api_key', 'The API key is not valid.');

  let allowedOrigin = '';
  if (record.type === 'publishable') {
    // Origin when the browser sent one (an opaque "null" origin is never allowed), else Referer.
    const rawOrigin = input.headers.origin;
    const origin = rawOrigin !== undefined ? originOf(rawOrigin) : originOf(input.headers.referer);
    if (!origin || !isOriginAllowed(origin, record.origins)) {
      return deny(403, 'origin_not_allowed', 'The request origin is not allowed for this key.');
    }
    allowedOrigin = origin;
  }

  // Rule 7: a custom hostname serves its owner only. Another account's key is refused here (403);
  // a hostname that is not active is let through marked `inactive` for the handler to answer 421,
  // which an authorizer cannot.
  let host: Pick<Principal, 'customHostname' | 'hostStatus'> = {};
  if (input.host) {
    const binding = bindHost(await input.host.lookup.getHostname(input.host.hostname), account);
    if (binding.kind === 'not_yours') {
      return deny(403, 'hostname_not_yours', `The hostname ${binding.hostname} belongs to another account.`);
    }
    if (binding.kind !== 'base') {
      host = { customHostname: binding.hostname, hostStatus: binding.kind };
    }
  }

  return {
    ok: true,
    principal: {
      accountId: account.accountId,
      keyId: record.keyId,
      keyType: record.type,
      plan: account.plan,
      perMinute: account.perMinute,
      monthlyCap: account.monthlyCap,
      includesSecurity: account.includesSecurity,
      allowedOrigin,
      ...host,
    },
  };
}
