import { describe, expect, test } from '@jest/globals';
import type { MxResolver } from '../../../functions/lib/dns/mx-resolver.js';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { mxStatusWithin, resolveMxStatus } from '../../../functions/lib/email/mx-status.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

const zones = new ZoneResolver({
  'two-mx.example': {
    mx: [
      { exchange: 'backup.mail.two-mx.example', priority: 20 },
      { exchange: 'Primary.Mail.Two-MX.example.', priority: 5 },
    ],
  },
  'tied-mx.example': {
    mx: [
      { exchange: 'mx-b.tied-mx.example', priority: 10 },
      { exchange: 'mx-a.tied-mx.example', priority: 10 },
    ],
  },
  'a-only.example': { a: ['192.0.2.10'] },
  'aaaa-only.example': { aaaa: ['2001:db8::10'] },
  'txt-only.example': {},
  'null-mx.example': { mx: [{ exchange: '', priority: 0 }] },
  'missing.example': { mx: 'nxdomain', a: 'nxdomain', aaaa: 'nxdomain' },
  'servfail.example': { mx: 'failure' },
  'a-fails.example': { a: 'failure' },
  'silent.example': { mx: 'hang' },
});

describe('mx-status', () => {
  describe('mx.status', () => {
    test('found: MX records exist, host is the lowest-preference one, lowercase without trailing dot', async () => {
      expect(await resolveMxStatus(zones, 'two-mx.example')).toEqual({
        status: 'found',
        host: 'primary.mail.two-mx.example',
      });
    });

    test('found: equal preferences are broken by host name, whatever the record order', async () => {
      expect(await resolveMxStatus(zones, 'tied-mx.example')).toEqual({
        status: 'found',
        host: 'mx-a.tied-mx.example',
      });
    });

    test('implicit: no MX but an A record', async () => {
      expect(await resolveMxStatus(zones, 'a-only.example')).toEqual({ status: 'implicit', host: null });
    });

    test('implicit: no MX but an AAAA record', async () => {
      expect(await resolveMxStatus(zones, 'aaaa-only.example')).toEqual({ status: 'implicit', host: null });
    });

    test('none: neither MX nor A/AAAA', async () => {
      expect(await resolveMxStatus(zones, 'txt-only.example')).toEqual({ status: 'none', host: null });
    });

    test('null_mx: the domain declares it accepts no mail (RFC 7505 "0 .")', async () => {
      expect(await resolveMxStatus(zones, 'null-mx.example')).toEqual({ status: 'null_mx', host: null });
    });

    test('no_domain: the domain does not exist', async () => {
      expect(await resolveMxStatus(zones, 'missing.example')).toEqual({ status: 'no_domain', host: null });
    });

    test('unknown: the lookup failed', async () => {
      expect(await resolveMxStatus(zones, 'servfail.example')).toEqual({ status: 'unknown', host: null });
    });

    test('unknown: no MX and the address lookup failed, so none cannot be told from implicit', async () => {
      expect(await resolveMxStatus(zones, 'a-fails.example')).toEqual({ status: 'unknown', host: null });
    });

    test('unknown: the lookup ran out of the DNS time budget', async () => {
      // silent.example never answers: an answer at all means the budget ended the wait.
      expect(await mxStatusWithin(zones, 'silent.example', 50)).toEqual({ status: 'unknown', host: null });
    });

    test('unknown: a resolver that throws is a DNS failure, never an error of the check', async () => {
      const broken: MxResolver = {
        resolveMx: () => {
          throw new Error('socket closed');
        },
        resolveA: () => Promise.reject(new Error('socket closed')),
        resolveAaaa: () => Promise.reject(new Error('socket closed')),
      };
      expect(await resolveMxStatus(broken, 'example.com')).toEqual({ status: 'unknown', host: null });
    });

    test('A/AAAA are queried only when there is no MX', async () => {
      const resolver = new ZoneResolver({
        'two-mx.example': { mx: [{ exchange: 'mx.two-mx.example', priority: 1 }] },
      });
      await resolveMxStatus(resolver, 'two-mx.example');
      expect(resolver.queries).toEqual(['MX two-mx.example']);
    });
  });

  describe('mx reasons in the check result', () => {
    test.each([
      ['two-mx.example', 'found', []],
      ['a-only.example', 'implicit', ['implicit_mx']],
      ['txt-only.example', 'none', ['no_mail_server']],
      ['null-mx.example', 'null_mx', ['no_mail_server']],
      ['missing.example', 'no_domain', ['domain_not_found']],
      ['servfail.example', 'unknown', ['dns_unavailable']],
      ['silent.example', 'unknown', ['dns_unavailable']],
    ])('a domain %s with mx.status %s gives reasons %j', async (domain, status, reasons) => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: zones, dnsBudgetMs: 50 });
      const result = await checker.check(`someone@${domain}`);
      expect(result.mx?.status).toBe(status);
      expect(result.reasons).toEqual(reasons);
    });

    test('mx.host is null unless the status is found', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: zones });
      expect((await checker.check('someone@a-only.example')).mx).toEqual({ status: 'implicit', host: null });
      expect((await checker.check('someone@two-mx.example')).mx).toEqual({
        status: 'found',
        host: 'primary.mail.two-mx.example',
      });
    });
  });
});
