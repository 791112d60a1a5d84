import { describe, expect, test } from '@jest/globals';
import { HOSTNAME_TIMEOUTS } from '../../../functions/lib/custom-hostnames/hostname.js';
import {
  addHostname,
  type DomainDeps,
  HOSTNAME_SLOT_GRACE_MS,
  listHostnames,
  MAX_HOSTNAMES_PER_ACCOUNT,
  removeHostname,
  verifyHostname,
  verifyUnsettled,
} from '../../../functions/lib/custom-hostnames/lifecycle.js';
import {
  account,
  configuredZone,
  hoursLater,
  MemoryHostnameStore,
  pendingRecord,
  ScriptedCertificates,
  T0,
  ZoneTable,
} from './support/fixtures.js';

function deps(overrides: Partial<DomainDeps> = {}): DomainDeps & { store: MemoryHostnameStore } {
  const accounts = new Map([
    ['acct_1', account('acct_1')],
    ['acct_2', account('acct_2', 'business')],
    ['acct_free', account('acct_free', 'free', false)],
  ]);
  let n = 0;
  return {
    store: new MemoryHostnameStore(),
    accounts: { getAccount: async (id) => accounts.get(id) },
    resolver: configuredZone(),
    certificates: new ScriptedCertificates(),
    now: () => T0,
    baseDomain: 'api.netintel.com',
    target: 'edge.netintel.com',
    newToken: () => (n++ === 0 ? 'tok123' : `tok${n}`),
    ...overrides,
  } as DomainDeps & { store: MemoryHostnameStore };
}

describe('lifecycle', () => {
  describe('domain add', () => {
    test('claims a valid hostname for an eligible account, pending_dns', async () => {
      const d = deps();
      const record = await addHostname('acct_1', 'GEO.shop.com', d);
      expect(record).toMatchObject({
        hostname: 'geo.shop.com',
        accountId: 'acct_1',
        status: 'pending_dns',
        token: 'tok123',
      });
      expect(d.store.items.get('geo.shop.com')).toEqual(record);
    });

    test.each([
      ['acct_free', 'geo.shop.com', 'plan_not_eligible'],
      ['acct_nope', 'geo.shop.com', 'unknown_account'],
      ['acct_1', 'co.uk', 'not_public'],
      ['acct_1', 'eu.api.netintel.com', 'base_domain'],
    ])('%s adding %s is refused (%s)', async (accountId, hostname, code) => {
      await expect(addHostname(accountId, hostname, deps())).rejects.toMatchObject({ code });
    });

    test('one hostname, one account: a second account is refused, the owner gets the claim back', async () => {
      const d = deps();
      const first = await addHostname('acct_1', 'geo.shop.com', d);
      await expect(addHostname('acct_2', 'geo.shop.com', d)).rejects.toMatchObject({
        code: 'hostname_claimed',
      });
      expect(await addHostname('acct_1', 'geo.shop.com', d)).toEqual(first);
    });

    test(`an account holds at most ${MAX_HOSTNAMES_PER_ACCOUNT} hostnames, whatever their state; removing one makes room`, async () => {
      const d = deps();
      for (let i = 0; i < MAX_HOSTNAMES_PER_ACCOUNT; i++) await addHostname('acct_1', `h${i}.shop.com`, d);
      await expect(addHostname('acct_1', 'one-more.shop.com', d)).rejects.toMatchObject({
        code: 'too_many_hostnames',
      });
      // One it holds already is still answered as it stands; another account is not affected.
      expect(await addHostname('acct_1', 'h0.shop.com', d)).toMatchObject({ hostname: 'h0.shop.com' });
      expect(await addHostname('acct_2', 'one-more.shop.com', d)).toMatchObject({ accountId: 'acct_2' });
      await removeHostname('h3.shop.com', d);
      expect(await addHostname('acct_1', 'h20.shop.com', d)).toMatchObject({ status: 'pending_dns' });
    });

    test(`claims at the same moment never hold more than ${MAX_HOSTNAMES_PER_ACCOUNT} hostnames; the loser of a race for one name gives its slot back`, async () => {
      const d = deps();
      const names = Array.from({ length: MAX_HOSTNAMES_PER_ACCOUNT + 10 }, (_, i) => `h${i}.race.com`);
      const results = await Promise.allSettled(names.map((name) => addHostname('acct_1', name, d)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(MAX_HOSTNAMES_PER_ACCOUNT);
      const refused = results.filter((r) => r.status === 'rejected');
      expect(refused).toHaveLength(10);
      for (const r of refused) expect(r).toMatchObject({ reason: { code: 'too_many_hostnames' } });
      expect(await d.store.listByAccount('acct_1')).toHaveLength(MAX_HOSTNAMES_PER_ACCOUNT);
      expect(d.store.slotsHeld('acct_1')).toHaveLength(MAX_HOSTNAMES_PER_ACCOUNT);
      // Removing one frees its slot: exactly one more claim gets in.
      await removeHostname('h0.race.com', d);
      const again = await Promise.allSettled(
        ['x1.race.com', 'x2.race.com', 'x3.race.com'].map((name) => addHostname('acct_1', name, d)),
      );
      expect(again.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      // Two claims of one name by one account: one record, one slot.
      const e = deps();
      await Promise.all([
        addHostname('acct_1', 'twice.race.com', e),
        addHostname('acct_1', 'twice.race.com', e),
      ]);
      expect(e.store.slotsHeld('acct_1')).toHaveLength(1);
    });

    test('a slot whose hostname is gone (a removal cut short) is taken back once the grace has passed', async () => {
      let now = T0;
      const d = deps({ now: () => now });
      for (let i = 0; i < MAX_HOSTNAMES_PER_ACCOUNT; i++) await addHostname('acct_1', `h${i}.shop.com`, d);
      // The record goes, its slot stays: what a process killed between the two writes leaves.
      d.store.items.delete('h5.shop.com');
      await expect(addHostname('acct_1', 'late.shop.com', d)).rejects.toMatchObject({
        code: 'too_many_hostnames',
      });
      now = new Date(T0.getTime() + HOSTNAME_SLOT_GRACE_MS);
      expect(await addHostname('acct_1', 'late.shop.com', d)).toMatchObject({ hostname: 'late.shop.com' });
      expect(d.store.slotsHeld('acct_1').map((s) => s.keyId)).not.toContain('h5.shop.com');
    });

    test('hostnames claimed before the slots existed count: the first claim gives each a slot', async () => {
      const d = deps();
      for (let i = 0; i < MAX_HOSTNAMES_PER_ACCOUNT; i++) {
        d.store.items.set(`old${i}.shop.com`, pendingRecord({ hostname: `old${i}.shop.com` }));
      }
      await expect(addHostname('acct_1', 'new.shop.com', d)).rejects.toMatchObject({
        code: 'too_many_hostnames',
      });
      expect(d.store.slotsHeld('acct_1')).toHaveLength(MAX_HOSTNAMES_PER_ACCOUNT);
    });

    test('a claim removed and added again keeps its first claim time and token: the 72 h are not restarted', async () => {
      let now = T0;
      const d = deps({ now: () => now, resolver: new ZoneTable() });
      const first = await addHostname('acct_1', 'geo.shop.com', d);
      for (const hours of [10, 40, 71]) {
        now = hoursLater(hours);
        await removeHostname('geo.shop.com', d);
        expect(await addHostname('acct_1', 'geo.shop.com', d)).toMatchObject({
          createdAt: T0.toISOString(),
          token: first.token,
          status: 'pending_dns',
        });
      }
      // 72 h after the first claim it fails, and another account that adds it then gets it.
      now = hoursLater(72);
      expect((await verifyHostname('geo.shop.com', d)).record).toMatchObject({
        status: 'failed',
        reason: 'dns_not_configured',
      });
      expect(await addHostname('acct_2', 'geo.shop.com', d)).toMatchObject({ accountId: 'acct_2' });
    });

    test("a claim past its 72 h without DNS no longer blocks another account, even before the verifier's run", async () => {
      let now = T0;
      const d = deps({ now: () => now, resolver: new ZoneTable() });
      await addHostname('acct_1', 'geo.shop.com', d);
      now = hoursLater(71.9);
      await expect(addHostname('acct_2', 'geo.shop.com', d)).rejects.toMatchObject({
        code: 'hostname_claimed',
      });
      now = hoursLater(72);
      expect(await addHostname('acct_2', 'geo.shop.com', d)).toMatchObject({ accountId: 'acct_2' });
      // acct_1's slot went with its claim.
      expect(d.store.slotsHeld('acct_1')).toHaveLength(0);
    });

    test('a lapsed claim added again by the same account has no new 72 h: it must verify at its first check', async () => {
      let now = T0;
      const d = deps({ now: () => now, resolver: new ZoneTable() });
      await addHostname('acct_1', 'geo.shop.com', d);
      now = hoursLater(80);
      await verifyHostname('geo.shop.com', d);
      await removeHostname('geo.shop.com', d);
      const again = await addHostname('acct_1', 'geo.shop.com', d);
      expect(again.createdAt).toBe(T0.toISOString());
      // Not in place: failed at once, and the name is free for others at the same moment.
      expect((await verifyHostname('geo.shop.com', d)).record).toMatchObject({ status: 'failed' });
      await removeHostname('geo.shop.com', d);
      await addHostname('acct_1', 'geo.shop.com', d);
      expect(await addHostname('acct_2', 'geo.shop.com', d)).toMatchObject({ accountId: 'acct_2' });
      // The owner of the domain who publishes the records first still gets it on its first check.
      const e = deps({ now: () => now });
      e.store.claims.set('geo.shop.com acct_1', { claimedAt: T0.toISOString(), token: 'tok123' });
      expect(await addHostname('acct_1', 'geo.shop.com', e)).toMatchObject({ createdAt: T0.toISOString() });
      expect((await verifyHostname('geo.shop.com', e)).record).toMatchObject({ status: 'active' });
    });

    test(`the first claim is forgotten after ${HOSTNAME_TIMEOUTS.claimMemoryMs / 86_400_000} days: a claim then has its own 72 h`, async () => {
      let now = T0;
      const d = deps({ now: () => now, resolver: new ZoneTable() });
      const first = await addHostname('acct_1', 'geo.shop.com', d);
      await removeHostname('geo.shop.com', d);
      now = new Date(T0.getTime() + HOSTNAME_TIMEOUTS.claimMemoryMs + 1);
      const later = await addHostname('acct_1', 'geo.shop.com', d);
      expect(later.createdAt).toBe(now.toISOString());
      expect(later.token).not.toBe(first.token);
      // Another account's first claim is its own: it never inherits acct_1's time.
      await removeHostname('geo.shop.com', d);
      expect(await addHostname('acct_2', 'geo.shop.com', d)).toMatchObject({ createdAt: now.toISOString() });
    });

    test("another account's failed claim is released for a new claimant; a pending or active one is not", async () => {
      const certificates = new ScriptedCertificates();
      const d = deps({ certificates });
      d.store.items.set(
        'squat.shop.com',
        pendingRecord({
          hostname: 'squat.shop.com',
          status: 'failed',
          certificateRequestedAt: T0.toISOString(),
        }),
      );
      d.store.items.set('held.shop.com', pendingRecord({ hostname: 'held.shop.com' }));
      d.store.items.set('live.shop.com', pendingRecord({ hostname: 'live.shop.com', status: 'active' }));
      expect(await addHostname('acct_2', 'squat.shop.com', d)).toMatchObject({
        accountId: 'acct_2',
        status: 'pending_dns',
      });
      expect(certificates.released).toEqual(['squat.shop.com']);
      for (const name of ['held.shop.com', 'live.shop.com']) {
        await expect(addHostname('acct_2', name, d)).rejects.toMatchObject({ code: 'hostname_claimed' });
        expect(d.store.items.get(name)?.accountId).toBe('acct_1');
      }
      // The edge still releasing the failed claim's certificate: the new claimant is asked to wait.
      certificates.releaseAnswer = 'pending';
      d.store.items.set(
        'slow.shop.com',
        pendingRecord({
          hostname: 'slow.shop.com',
          status: 'failed',
          certificateRequestedAt: T0.toISOString(),
        }),
      );
      await expect(addHostname('acct_2', 'slow.shop.com', d)).rejects.toMatchObject({
        code: 'hostname_claimed',
        message: expect.stringContaining('being released'),
      });
      expect(d.store.items.get('slow.shop.com')).toMatchObject({ accountId: 'acct_1', status: 'removing' });
    });

    test("two accounts racing for another's failed claim: one gets it, the other is refused with a 4xx code", async () => {
      const d = deps();
      d.store.items.set(
        'squat.shop.com',
        pendingRecord({ hostname: 'squat.shop.com', status: 'failed', accountId: 'acct_free' }),
      );
      const results = await Promise.allSettled([
        addHostname('acct_1', 'squat.shop.com', d),
        addHostname('acct_2', 'squat.shop.com', d),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.find((r) => r.status === 'rejected')).toMatchObject({
        reason: { code: 'hostname_claimed' },
      });
    });

    test('two accounts racing: the conditional put lets exactly one win', async () => {
      const d = deps();
      const results = await Promise.allSettled([
        addHostname('acct_1', 'geo.shop.com', d),
        addHostname('acct_2', 'geo.shop.com', d),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    });
  });

  describe('domain verify and the scheduled sweep', () => {
    test('verify saves the outcome; active is left alone afterwards', async () => {
      const d = deps({ now: () => hoursLater(1) });
      await addHostname('acct_1', 'geo.shop.com', d);
      const result = await verifyHostname('geo.shop.com', d);
      expect(result.transitions).toEqual(['pending_certificate', 'active']);
      expect(d.store.items.get('geo.shop.com')?.status).toBe('active');
      expect((await verifyHostname('geo.shop.com', d)).transitions).toEqual([]);
    });

    test('an unknown hostname is refused', async () => {
      await expect(verifyHostname('nope.shop.com', deps())).rejects.toMatchObject({
        code: 'unknown_hostname',
      });
    });

    test('the sweep checks pending hostnames only and reports changes', async () => {
      const d = deps({ now: () => hoursLater(1), resolver: new ZoneTable() });
      await addHostname('acct_1', 'geo.shop.com', d);
      await addHostname('acct_1', 'api.shop.com', d);
      d.store.items.set('old.shop.com', {
        ...d.store.items.get('api.shop.com')!,
        hostname: 'old.shop.com',
        status: 'active',
      });
      d.resolver = configuredZone();
      const summary = await verifyUnsettled(d);
      expect(summary.checked).toBe(2);
      expect(summary.changed).toEqual([
        { hostname: 'geo.shop.com', transitions: ['pending_certificate', 'active'] },
      ]);
      expect(summary.errors).toEqual([]);
    });

    test('a hostname removed after the sweep listed it gets no certificate', async () => {
      const d = deps();
      await addHostname('acct_1', 'geo.shop.com', d);
      const listed = await d.store.listUnsettled();
      d.store.listUnsettled = async () => listed;
      await removeHostname('geo.shop.com', d);
      const summary = await verifyUnsettled(d);
      expect(summary.changed).toEqual([]);
      expect((d.certificates as ScriptedCertificates).requested).toEqual([]);
      expect(d.store.items.size).toBe(0);
    });

    test('a failing check of one hostname does not stop the others', async () => {
      const d = deps();
      await addHostname('acct_1', 'geo.shop.com', d);
      await addHostname('acct_1', 'api.shop.com', d);
      const certificates = new ScriptedCertificates();
      certificates.request = async (hostname) => {
        if (hostname === 'geo.shop.com') throw new Error('throttled');
      };
      d.certificates = certificates;
      d.resolver = new ZoneTable({
        ...configuredZone().zone,
        'api.shop.com': { cname: ['edge.netintel.com'] },
        '_netintel-challenge.api.shop.com': { txt: ['netintel-verification=tok2'] },
      });
      const summary = await verifyUnsettled(d);
      expect(summary.errors).toEqual([{ hostname: 'geo.shop.com', error: 'throttled' }]);
      expect(summary.changed.map((c) => c.hostname)).toEqual(['api.shop.com']);
    });
  });

  describe('domain remove and list', () => {
    test('a hostname without a certificate is deleted at once', async () => {
      const d = deps();
      await addHostname('acct_1', 'geo.shop.com', d);
      expect(await removeHostname('geo.shop.com', d)).toBe('removed');
      expect(d.store.items.size).toBe(0);
      expect((d.certificates as ScriptedCertificates).released).toEqual([]);
    });

    test('where the edge lets go asynchronously, removing until a later check releases it', async () => {
      const certificates = new ScriptedCertificates({ state: 'issued' }, 'pending');
      const d = deps({ certificates });
      await addHostname('acct_1', 'geo.shop.com', d);
      await verifyHostname('geo.shop.com', d);
      expect(await removeHostname('geo.shop.com', d)).toBe('removing');
      expect(d.store.items.get('geo.shop.com')?.status).toBe('removing');
      expect((await verifyUnsettled(d)).changed).toEqual([]);
      certificates.releaseAnswer = 'released';
      expect((await verifyUnsettled(d)).changed).toEqual([
        { hostname: 'geo.shop.com', transitions: ['removed'] },
      ]);
      expect(d.store.items.size).toBe(0);
    });

    test('list shows an account its hostnames, sorted, with the records to create', async () => {
      const d = deps();
      await addHostname('acct_1', 'geo.shop.com', d);
      await addHostname('acct_1', 'api.shop.com', d);
      await addHostname('acct_2', 'geo.other.com', d);
      const list = await listHostnames('acct_1', d);
      expect(list.map((h) => h.hostname)).toEqual(['api.shop.com', 'geo.shop.com']);
      expect(list[0]!.records.map((r) => r.type)).toEqual(['CNAME', 'TXT']);
    });
  });
});
