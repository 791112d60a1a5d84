import type { Route } from '../../routes.js';
import { bindHost } from '../custom-hostnames/binding.js';
import type { HostnameLookup } from '../custom-hostnames/hostname.js';
import type { ErrorCode } from '../http/errors.js';
import type { Principal } from '../http/principal.js';
import type { AccountStore } from './account.js';
import { hashApiKey, isWellFormedKey } from './api-key.js';
import { isOriginAllowed, originOf } from './origins.js';

export type AuthDecision =
  | {
      ok: true;
      principal: Principal;
      /** The account's own API Gateway usage-plan key, when it has one (accounts/usage-plan-keys.ts). */
      usagePlanKey?: string;
    }
  | {
      ok: false;
      status: 401 | 403;
      code: ErrorCode;
      message: string;
      /** A refusal after the origin check passed: the page may read it (gateway-responses.ts). */
      allowedOrigin?: string;
    };

export interface AuthInput {
  route: Route;
  /**
   * Every value of every header, names lower-cased (http/multi-value.ts headerValues): a header
   * sent twice has two values, whatever the case of its names.
   */
  headers: Record<string, readonly string[] | undefined>;
  /** Every value of every query parameter (http/multi-value.ts queryValues). */
  query: Record<string, readonly string[] | undefined>;
  /**
   * The request's host when it may be a custom hostname (custom-hostnames/binding.ts hostCandidate), with
   * where to look it up. Absent: the base address.
   */
  host?: { hostname: string; lookup: HostnameLookup };
}

const deny = (status: 401 | 403, code: ErrorCode, message: string): Extract<AuthDecision, { ok: false }> => ({
  ok: false,
  status,
  code,
  message,
});

type Channel = 'bearer' | 'header' | 'query';

/** Where each channel is sent, for messages. */
const CHANNEL_NAMES: Record<Channel, string> = {
  bearer: 'the Authorization header',
  header: 'the X-Api-Key header',
  query: 'the key query parameter',
};

/**
 * Keys the caller presented, with the channel each came through, or why they cannot be used. Each
 * channel carries at most one value: with two (two Authorization or X-Api-Key headers, `?key=`
 * twice) API Gateway's single-value maps would keep the last one and bill whichever key that is,
 * so the request is refused instead, even when both values are the same.
 */
function presentedKeys(input: AuthInput): { key: string; channel: Channel }[] | string {
  const sent: [Channel, readonly string[]][] = [
    ['bearer', input.headers.authorization ?? []],
    ['header', input.headers['x-api-key'] ?? []],
    // Spec: the `key` query parameter is a fallback for GET /v1/geo only.
    ['query', input.route.name === 'geo' ? (input.query.key ?? []) : []],
  ];
  const found: { key: string; channel: Channel }[] = [];
  for (const [channel, values] of sent) {
    if (values.length > 1) {
      return `Send exactly one API key; ${CHANNEL_NAMES[channel]} was sent ${values.length} times.`;
    }
    const value = values[0];
    if (value === undefined) continue;
    if (channel === 'bearer') {
      const m = /^Bearer (\S+)$/i.exec(value.trim());
      if (!m) return 'The Authorization header must be "Bearer <secret key>".';
      found.push({ key: m[1]!, channel });
    } else {
      found.push({ key: channel === 'header' ? value.trim() : value, channel });
    }
  }
  return found;
}

/** The last value of a header, the one API Gateway's single-value map holds. */
const lastOf = (values: readonly string[] | undefined): string | undefined => values?.at(-1);

/**
 * Spec, Authentication rules 1-5 and 7: who is calling, with which key type, from which origin, on
 * which hostname. 401 for a missing, malformed, unknown or revoked key, and for more than one key
 * (two different keys, or one channel sent twice); 403 for the wrong key type, an origin that is
 * not on a publishable key's list, or another account's custom hostname.
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
    const rawOrigin = lastOf(input.headers.origin);
    const origin = rawOrigin !== undefined ? originOf(rawOrigin) : originOf(lastOf(input.headers.referer));
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
      const refusal = deny(
        403,
        'hostname_not_yours',
        `The hostname ${binding.hostname} belongs to another account.`,
      );
      return allowedOrigin ? { ...refusal, allowedOrigin } : refusal;
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
    ...(account.usagePlanKey ? { usagePlanKey: account.usagePlanKey.value } : {}),
  };
}
