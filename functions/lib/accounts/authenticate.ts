import { bindHost } from '../custom-hostnames/binding.js';
import type { HostnameLookup } from '../custom-hostnames/hostname.js';
import type { ErrorCode } from '../http/errors.js';
import type { Principal } from '../http/principal.js';
import type { KeyRoute } from '../route-types.js';
import { testPartitionOf } from '../test-mode/mode.js';
import type { AccountStore, KeyRecord } from './account.js';
import { hashApiKey, isWellFormedKey } from './api-key.js';
import { AUTH_MESSAGES } from './auth-messages.js';
import { headerOriginOf, isOriginAllowed, originOf } from './origins.js';

export type AuthDecision =
  | {
      ok: true;
      principal: Principal;
      /** The account's own API Gateway usage-plan key, when it has one (accounts/usage-plan-keys.ts). */
      usagePlanKey?: string;
      /** The key's record as read (its hash, and the day it was last marked used). */
      key?: Pick<KeyRecord, 'keyHash' | 'lastUsedDay'>;
    }
  | {
      ok: false;
      status: 401 | 403;
      code: ErrorCode;
      message: string;
      /** A refusal after the origin check passed: the page may read it (gateway-responses.ts). */
      allowedOrigin?: string;
      /** The origin a publishable key was refused for (403 origin_not_allowed), for the logs. */
      refusedOrigin?: string;
    };

export interface AuthInput {
  route: KeyRoute;
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
  // An empty X-Api-Key or `?key=` is refused as an empty key, never dropped (a key sent where it is
  // not read is said to be, below): one rule for every channel, as for a channel sent twice.
  const sent: [Channel, readonly string[]][] = [
    ['bearer', input.headers.authorization ?? []],
    ['header', input.headers['x-api-key'] ?? []],
    // The `key` query parameter is a fallback for GET /v1/geo only (docs/api.md: Authentication).
    ['query', input.route.name === 'geo' ? (input.query.key ?? []) : []],
  ];
  const found: { key: string; channel: Channel }[] = [];
  for (const [channel, values] of sent) {
    if (values.length > 1) {
      return AUTH_MESSAGES.sentTwice(CHANNEL_NAMES[channel], values.length);
    }
    const value = values[0];
    if (value === undefined) continue;
    if (channel === 'bearer') {
      const m = /^Bearer (\S+)$/i.exec(value.trim());
      if (!m) return AUTH_MESSAGES.malformedAuthorization;
      found.push({ key: m[1]!, channel });
    } else {
      const key = channel === 'header' ? value.trim() : value;
      if (key === '') return AUTH_MESSAGES.emptyKey(CHANNEL_NAMES[channel]);
      found.push({ key, channel });
    }
  }
  return found;
}

/** A `?key=` on a route that does not read it (every route but GET /v1/geo). */
const keyQueryIgnored = (input: AuthInput): boolean =>
  input.route.name !== 'geo' && (input.query.key?.length ?? 0) > 0;

/** The last value of a header, the one API Gateway's single-value map holds. */
const lastOf = (values: readonly string[] | undefined): string | undefined => values?.at(-1);

/**
 * docs/api.md: Authentication, and docs/custom-hostnames.md: who is calling, with which key type, from
 * which origin, on which hostname. 401 for a missing, malformed, unknown or revoked key, and for
 * more than one key (two different keys, or one channel sent twice); 403 for the wrong key type, an
 * origin that is not on a publishable key's list, or another account's custom hostname.
 */
export async function authenticate(input: AuthInput, store: AccountStore): Promise<AuthDecision> {
  const presented = presentedKeys(input);
  if (typeof presented === 'string') return deny(401, 'invalid_api_key', presented);
  const distinct = new Set(presented.map((p) => p.key));
  if (distinct.size === 0) {
    // A key was sent, only not where this route reads it: saying none was would mislead.
    return deny(
      401,
      'invalid_api_key',
      keyQueryIgnored(input) ? AUTH_MESSAGES.keyQueryNotRead : AUTH_MESSAGES.noKey,
    );
  }
  if (distinct.size > 1) return deny(401, 'invalid_api_key', AUTH_MESSAGES.twoKeys);
  const key = presented[0]!.key;
  if (!isWellFormedKey(key)) return deny(401, 'invalid_api_key', AUTH_MESSAGES.malformedKey);

  const hash = hashApiKey(key);
  const record = await store.getKeyByHash(hash);
  if (!record || record.revoked) return deny(401, 'invalid_api_key', AUTH_MESSAGES.unknownKey);
  const expected = input.route.auth;
  if (record.type !== expected) {
    // Rule 4: the wrong key type is 403.
    return deny(403, 'wrong_key_type', AUTH_MESSAGES.wrongKeyType(expected, record.type));
  }
  if (record.type === 'secret' && presented.some((p) => p.channel !== 'bearer')) {
    return deny(401, 'invalid_api_key', AUTH_MESSAGES.secretOutsideBearer);
  }
  if (record.type === 'publishable' && presented.some((p) => p.channel === 'bearer')) {
    return deny(401, 'invalid_api_key', AUTH_MESSAGES.publishableAsBearer);
  }

  if (record.mode === 'test' && input.route.liveKeyOnly) {
    return deny(403, 'live_key_required', AUTH_MESSAGES.liveKeyRequired);
  }

  const account = await store.getAccount(record.accountId);
  if (!account) return deny(401, 'invalid_api_key', AUTH_MESSAGES.unknownKey);

  let allowedOrigin = '';
  if (record.type === 'publishable') {
    // One Origin (or Referer) only, as a browser sends: of two, which would be the page's?
    const [header, values] = input.headers.origin?.length
      ? (['Origin', input.headers.origin] as const)
      : (['Referer', input.headers.referer ?? []] as const);
    if (values.length > 1) return deny(403, 'origin_not_allowed', AUTH_MESSAGES.repeatedOrigin(header));
    // Origin when the browser sent one (an opaque "null" origin is never allowed), else Referer.
    const rawOrigin = lastOf(input.headers.origin);
    const rawReferer = lastOf(input.headers.referer);
    const origin = rawOrigin !== undefined ? headerOriginOf(rawOrigin) : originOf(rawReferer);
    if (!origin) {
      // Missing, or sent but unreadable (`null`, another scheme, a bad port): said apart, never quoted.
      const sent = rawOrigin !== undefined ? 'Origin' : rawReferer !== undefined ? 'Referer' : null;
      return deny(
        403,
        'origin_not_allowed',
        sent ? AUTH_MESSAGES.unreadableOrigin(sent) : AUTH_MESSAGES.noOrigin,
      );
    }
    if (!isOriginAllowed(origin, record.origins)) {
      // The refused origin travels with the refusal for the logs: the browser cannot read this 403.
      return {
        ...deny(403, 'origin_not_allowed', AUTH_MESSAGES.originNotAllowed(origin)),
        refusedOrigin: origin,
      };
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

  // A test key's calls are its account's test partition (test-mode/mode.ts): counted, stored and
  // announced apart from the live account's, under the account's own limits and rules.
  const test = record.mode === 'test';
  return {
    ok: true,
    principal: {
      accountId: test ? testPartitionOf(account.accountId) : account.accountId,
      ...(test ? { mode: 'test' as const } : {}),
      keyId: record.keyId,
      keyType: record.type,
      plan: account.plan,
      perMinute: account.perMinute,
      monthlyCap: account.monthlyCap,
      includesSecurity: account.includesSecurity,
      allowedOrigin,
      ...host,
      ...(account.rulesVersion ? { rulesVersion: account.rulesVersion } : {}),
    },
    ...(account.usagePlanKey ? { usagePlanKey: account.usagePlanKey.value } : {}),
    key: { keyHash: record.keyHash, ...(record.lastUsedDay ? { lastUsedDay: record.lastUsedDay } : {}) },
  };
}
