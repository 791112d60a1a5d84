import { describe, expect, test } from '@jest/globals';
import { HOSTNAME_TIMEOUTS } from '../../../functions/lib/custom-hostnames/hostname.js';
import { LocalCertificateProvider } from '../../../functions/lib/custom-hostnames/local-certificates.js';
import { recordsFor } from '../../../functions/lib/custom-hostnames/records.js';
import { advance, checkDns } from '../../../functions/lib/custom-hostnames/verify.js';
import {
  configuredZone,
  hoursLater,
  pendingRecord,
  ScriptedCertificates,
  T0,
  ZoneTable,
} from './support/fixtures.js';

describe('verify', () => {
  describe('the records a customer creates', () => {
    test('are the CNAME to our edge and the TXT challenge with the claim token', () => {
      expect(recordsFor(pendingRecord())).toEqual([
        { type: 'CNAME', name: 'geo.shop.com', value: 'edge.netintel.com' },
        { type: 'TXT', name: '_netintel-challenge.geo.shop.com', value: 'netintel-verification=tok123' },
      ]);
    });
  });

  describe('checkDns', () => {
    test.each([
      ['no records at all', new ZoneTable(), 'cname_missing'],
      [
        'a CNAME elsewhere',
        new ZoneTable({ 'geo.shop.com': { cname: ['shop.other-cdn.net'] } }),
        'cname_mismatch',
      ],
      ['an A record instead of the CNAME', new ZoneTable({ 'geo.shop.com': { txt: [] } }), 'cname_missing'],
      [
        'the CNAME without the TXT',
        new ZoneTable({ 'geo.shop.com': { cname: ['edge.netintel.com.'] } }),
        'txt_missing',
      ],
      [
        'a TXT with another token',
        new ZoneTable({
          'geo.shop.com': { cname: ['edge.netintel.com'] },
          '_netintel-challenge.geo.shop.com': { txt: ['netintel-verification=other'] },
        }),
        'txt_mismatch',
      ],
      ['a resolver failure', new ZoneTable({ 'geo.shop.com': { cname: 'failure' } }), 'dns_error'],
    ])('%s: not verified (%s)', async (_, zone, reason) => {
      expect(await checkDns(pendingRecord(), zone)).toMatchObject({ ok: false, reason });
    });

    test('a CNAME to the target in any case, with a trailing dot, and the TXT among others: verified', async () => {
      expect(await checkDns(pendingRecord(), configuredZone())).toEqual({ ok: true });
    });

    test('a CNAME elsewhere names the current target in the message', async () => {
      const zone = new ZoneTable({ 'geo.shop.com': { cname: ['shop.other-cdn.net'] } });
      const check = await checkDns(pendingRecord(), zone);
      expect(check.ok ? '' : check.message).toContain('shop.other-cdn.net');
    });
  });

  describe('the verification state machine', () => {
    test('records in place and a certificate issued at once: pending_dns -> pending_certificate -> active', async () => {
      const certificates = new ScriptedCertificates({ state: 'issued' });
      const out = await advance(pendingRecord(), {
        resolver: configuredZone(),
        certificates,
        now: hoursLater(1),
      });
      expect(out.transitions).toEqual(['pending_certificate', 'active']);
      expect(out.record).toMatchObject({
        status: 'active',
        dnsVerifiedAt: hoursLater(1).toISOString(),
        activatedAt: hoursLater(1).toISOString(),
        reason: undefined,
        message: undefined,
      });
      expect(certificates.requested).toEqual(['geo.shop.com']);
    });

    test('the local certificate step is done once DNS verifies', async () => {
      const out = await advance(pendingRecord(), {
        resolver: configuredZone(),
        certificates: new LocalCertificateProvider(),
        now: hoursLater(1),
      });
      expect(out.record.status).toBe('active');
    });

    test('no certificate is requested before DNS verifies; the reason is kept while pending', async () => {
      const certificates = new ScriptedCertificates();
      const out = await advance(pendingRecord(), {
        resolver: new ZoneTable(),
        certificates,
        now: hoursLater(71),
      });
      expect(out.transitions).toEqual([]);
      expect(out.record).toMatchObject({
        status: 'pending_dns',
        reason: 'cname_missing',
        checkedAt: hoursLater(71).toISOString(),
      });
      expect(certificates.requested).toEqual([]);
    });

    test('records still missing 72 h after domain add: failed, dns_not_configured', async () => {
      const out = await advance(pendingRecord(), {
        resolver: new ZoneTable({ 'geo.shop.com': { cname: ['shop.other-cdn.net'] } }),
        certificates: new ScriptedCertificates(),
        now: new Date(T0.getTime() + HOSTNAME_TIMEOUTS.dnsMs),
      });
      expect(out.transitions).toEqual(['failed']);
      expect(out.record).toMatchObject({ status: 'failed', reason: 'dns_not_configured' });
      expect(out.record.message).toContain('shop.other-cdn.net');
    });

    test('a certificate still being issued keeps pending_certificate; the next check activates it', async () => {
      const certificates = new ScriptedCertificates({ state: 'pending' });
      const first = await advance(pendingRecord(), {
        resolver: configuredZone(),
        certificates,
        now: hoursLater(1),
      });
      expect(first.transitions).toEqual(['pending_certificate']);
      expect(first.record.status).toBe('pending_certificate');

      certificates.state = { state: 'issued' };
      const second = await advance(first.record, {
        resolver: new ZoneTable(),
        certificates,
        now: hoursLater(2),
      });
      expect(second.transitions).toEqual(['active']);
      expect(certificates.requested).toEqual(['geo.shop.com']);
    });

    test('a refused certificate: failed, certificate_failed', async () => {
      const out = await advance(
        pendingRecord({ status: 'pending_certificate', dnsVerifiedAt: T0.toISOString() }),
        {
          resolver: new ZoneTable(),
          certificates: new ScriptedCertificates({
            state: 'failed',
            reason: 'certificate validation-timed-out',
          }),
          now: hoursLater(1),
        },
      );
      expect(out.record).toMatchObject({ status: 'failed', reason: 'certificate_failed' });
      expect(out.record.message).toContain('validation-timed-out');
    });

    test('a certificate not issued 72 h after DNS verified: failed, certificate_timeout', async () => {
      const record = pendingRecord({
        status: 'pending_certificate',
        dnsVerifiedAt: hoursLater(10).toISOString(),
      });
      const certificates = new ScriptedCertificates({ state: 'pending' });
      const before = await advance(record, { resolver: new ZoneTable(), certificates, now: hoursLater(81) });
      expect(before.record.status).toBe('pending_certificate');
      const after = await advance(record, { resolver: new ZoneTable(), certificates, now: hoursLater(82) });
      expect(after.record).toMatchObject({ status: 'failed', reason: 'certificate_timeout' });
    });

    test.each(['active', 'failed'] as const)('%s is final for the machine', async (status) => {
      const out = await advance(pendingRecord({ status }), {
        resolver: configuredZone(),
        certificates: new ScriptedCertificates(),
        now: hoursLater(1),
      });
      expect(out).toMatchObject({ transitions: [], record: { status } });
    });
  });
});
