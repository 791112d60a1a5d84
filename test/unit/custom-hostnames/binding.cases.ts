import { describe, expect, test } from '@jest/globals';
import type { AccountStore, KeyRecord } from '../../../functions/lib/accounts/account.js';
import { generateApiKey, hashApiKey } from '../../../functions/lib/accounts/api-key.js';
import { authenticate } from '../../../functions/lib/accounts/authenticate.js';
import { bindHost, hostCandidate, requestHost } from '../../../functions/lib/custom-hostnames/binding.js';
import { cachingHostnameLookup } from '../../../functions/lib/custom-hostnames/cached-lookup.js';
import { fromOurEdge } from '../../../functions/lib/gateway/edge-origin.js';
import { PrincipalSchema, toAuthorizerContext } from '../../../functions/lib/http/principal.js';
import { routeByName } from '../../../functions/routes.js';
import { account, MemoryHostnameStore, pendingRecord } from './support/fixtures.js';

describe('binding', () => {
  describe('which host a request was addressed to', () => {
    test('X-Forwarded-Host only when the request proves it came through our CloudFront', () => {
      const headers = { host: 'abc.execute-api.eu-west-1.amazonaws.com', 'x-forwarded-host': 'geo.shop.com' };
      expect(requestHost(headers, true)).toBe('geo.shop.com');
      expect(requestHost(headers, false)).toBe('abc.execute-api.eu-west-1.amazonaws.com');
      expect(requestHost({ host: 'geo.shop.com' }, true)).toBe('geo.shop.com');
      expect(requestHost({ 'x-forwarded-host': 'a.shop.com, b.shop.com' }, true)).toBe('a.shop.com');
    });

    test('the proof is the X-Origin-Verify header equal to ORIGIN_SECRET', () => {
      expect(fromOurEdge({ headers: { 'x-origin-verify': 's3cret' } }, 's3cret')).toBe(true);
      expect(fromOurEdge({ headers: { 'x-origin-verify': 's3cre' } }, 's3cret')).toBe(false);
      expect(fromOurEdge({ headers: {} }, 's3cret')).toBe(false);
      expect(fromOurEdge({ headers: { 'x-origin-verify': 'x' } }, undefined)).toBe(false);
    });

    test.each([
      ['geo.shop.com', 'geo.shop.com'],
      ['GEO.Shop.com:443', 'geo.shop.com'],
      ['geo.shop.com.', 'geo.shop.com'],
      ['', undefined],
      ['localhost:3000', undefined],
      ['127.0.0.1:8080', undefined],
      ['[::1]:8080', undefined],
      ['api.netintel.com', undefined],
      ['eu.api.netintel.com', undefined],
      ['abc123.execute-api.eu-west-1.amazonaws.com', undefined],
      ['d111111abcdef8.cloudfront.net', undefined],
      ['geo shop.com', undefined],
    ])('host %j -> lookup %j', (raw, expected) => {
      expect(hostCandidate(raw, 'api.netintel.com')).toBe(expected);
    });
  });

  describe('binding a request on a known hostname (rule 7)', () => {
    const active = pendingRecord({ status: 'active' });

    test('unknown: the base address', () => {
      expect(bindHost(undefined, account('acct_1'))).toEqual({ kind: 'base' });
    });

    test('the owner on an active hostname: bound', () => {
      expect(bindHost(active, account('acct_1'))).toEqual({ kind: 'active', hostname: 'geo.shop.com' });
    });

    test.each(['pending_dns', 'pending_certificate', 'failed', 'removing'] as const)(
      'the owner on a %s hostname: inactive (421)',
      (status) => {
        expect(bindHost(pendingRecord({ status }), account('acct_1')).kind).toBe('inactive');
      },
    );

    test('the owner whose plan lost the feature: inactive', () => {
      expect(bindHost(active, account('acct_1', 'free', false)).kind).toBe('inactive');
    });

    test('another account, whatever the status: not yours (403)', () => {
      for (const status of ['active', 'pending_dns', 'failed'] as const) {
        expect(bindHost(pendingRecord({ status }), account('acct_2')).kind).toBe('not_yours');
      }
    });
  });

  describe('the authorizer decision with a host', () => {
    const keyOf = (accountId: string) => {
      const key = generateApiKey('secret');
      const record: KeyRecord = {
        keyId: `key_${accountId}`,
        keyHash: hashApiKey(key),
        accountId,
        type: 'secret',
        origins: [],
        revoked: false,
        createdAt: '2026-01-01T00:00:00Z',
      };
      return { key, record };
    };
    const owner = keyOf('acct_1');
    const other = keyOf('acct_2');
    const accounts: AccountStore = {
      getKeyByHash: async (h) => [owner.record, other.record].find((r) => r.keyHash === h),
      getAccount: async (id) => account(id),
    };
    const route = routeByName('lookup-ip');
    const hosts = new MemoryHostnameStore();
    hosts.items.set('geo.shop.com', pendingRecord({ status: 'active' }));
    hosts.items.set('new.shop.com', pendingRecord({ hostname: 'new.shop.com' }));
    const call = (key: string, hostname?: string) =>
      authenticate(
        {
          route,
          headers: { authorization: [`Bearer ${key}`] },
          query: {},
          ...(hostname ? { host: { hostname, lookup: hosts } } : {}),
        },
        accounts,
      );

    test('the owner on an active hostname: allowed, with the hostname in the principal', async () => {
      const d = await call(owner.key, 'geo.shop.com');
      expect(d).toMatchObject({
        ok: true,
        principal: { customHostname: 'geo.shop.com', hostStatus: 'active' },
      });
      if (d.ok) expect(PrincipalSchema.parse(toAuthorizerContext(d.principal))).toEqual(d.principal);
    });

    test('another account on it: 403 hostname_not_yours', async () => {
      expect(await call(other.key, 'geo.shop.com')).toMatchObject({
        ok: false,
        status: 403,
        code: 'hostname_not_yours',
      });
    });

    test('the owner on a pending one: allowed but marked inactive for the 421', async () => {
      const d = await call(owner.key, 'new.shop.com');
      expect(d).toMatchObject({ ok: true, principal: { hostStatus: 'inactive' } });
      if (d.ok)
        expect(toAuthorizerContext(d.principal)).toMatchObject({
          hostStatus: 'inactive',
          customHostname: 'new.shop.com',
        });
    });

    test('an unknown host or none: the base address, no host fields', async () => {
      for (const hostname of ['other.shop.com', undefined]) {
        const d = await call(other.key, hostname);
        expect(d.ok).toBe(true);
        if (d.ok) {
          expect(d.principal.customHostname).toBeUndefined();
          expect(Object.keys(toAuthorizerContext(d.principal))).not.toContain('hostStatus');
        }
      }
    });

    test('a bad key is 401 before any hostname lookup', async () => {
      const reads = hosts.reads;
      expect(await call('ni_sec_nope', 'geo.shop.com')).toMatchObject({ ok: false, status: 401 });
      expect(hosts.reads).toBe(reads);
    });
  });

  describe('hostname records are cached per container like keys', () => {
    test('one read per hostname per TTL, absent ones included', async () => {
      const store = new MemoryHostnameStore();
      store.items.set('geo.shop.com', pendingRecord());
      let clock = 0;
      const cached = cachingHostnameLookup(store, { ttlMs: 5_000, now: () => clock });
      await cached.getHostname('geo.shop.com');
      await cached.getHostname('geo.shop.com');
      await cached.getHostname('nope.shop.com');
      await cached.getHostname('nope.shop.com');
      expect(store.reads).toBe(2);
      store.items.set('geo.shop.com', pendingRecord({ status: 'active' }));
      clock = 4_999;
      expect((await cached.getHostname('geo.shop.com'))?.status).toBe('pending_dns');
      clock = 5_000;
      expect((await cached.getHostname('geo.shop.com'))?.status).toBe('active');
    });
  });
});
