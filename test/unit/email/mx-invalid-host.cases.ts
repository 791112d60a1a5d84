import { describe, expect, test } from '@jest/globals';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { resolveMxStatus } from '../../../functions/lib/email/mx-status.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

// An MX name is third-party data: one that is not a valid host name is ignored as if that record
// were absent. With no valid record left the domain has no mail server (`none`): RFC 5321 section
// 5.1 falls back to A/AAAA only when there are no MX records at all.

const FORMULA_MX = "=cmd|'/ccalc'!a0.evil.example";

const zones = new ZoneResolver({
  'formula-mx.example': { mx: [{ exchange: FORMULA_MX, priority: 10 }], a: ['192.0.2.40'] },
  'mixed-mx.example': {
    mx: [
      { exchange: FORMULA_MX, priority: 0 },
      { exchange: 'mail.mixed-mx.example', priority: 20 },
    ],
  },
  'null-and-invalid.example': {
    mx: [
      { exchange: '', priority: 0 },
      { exchange: 'under_score.null-and-invalid.example', priority: 10 },
    ],
  },
});

describe('mx-invalid-host', () => {
  describe('an MX name that is not a valid host name', () => {
    test.each([
      ['a formula', FORMULA_MX],
      ['an underscore', 'mail_server.example'],
      ['a space', 'mail server.example'],
      ['a leading tab', '\tmx.example'],
      ['a trailing carriage return', 'mx.example\r'],
      ['a label starting with a hyphen', '-mx.example'],
      ['a label ending with a hyphen', 'mx-.example'],
      ['an empty label', 'mx..example'],
      ['a label of 64 characters', `${'a'.repeat(64)}.example`],
      [
        'a name of 254 characters',
        `${'a'.repeat(62)}.${'b'.repeat(62)}.${'c'.repeat(62)}.${'d'.repeat(57)}.example`,
      ],
      ['an IPv4 address', '192.0.2.1'],
      ['a single label', 'localhost'],
      ['a non-ASCII character', 'mx.exämple.example'],
    ])('with %s is not a found mail server', async (_case, exchange) => {
      const resolver = new ZoneResolver({ 'only-invalid.example': { mx: [{ exchange, priority: 10 }] } });
      expect(await resolveMxStatus(resolver, 'only-invalid.example')).toEqual({ status: 'none', host: null });
    });

    test('is ignored beside a valid MX record, even at a lower preference', async () => {
      expect(await resolveMxStatus(zones, 'mixed-mx.example')).toEqual({
        status: 'found',
        host: 'mail.mixed-mx.example',
      });
    });

    test('as the only MX record gives none, without falling back to the A record (no implicit MX)', async () => {
      const resolver = new ZoneResolver({
        'formula-mx.example': { mx: [{ exchange: FORMULA_MX, priority: 10 }], a: ['192.0.2.40'] },
      });
      expect(await resolveMxStatus(resolver, 'formula-mx.example')).toEqual({ status: 'none', host: null });
      expect(resolver.queries).toEqual(['MX formula-mx.example']);
    });

    test('beside a null MX leaves null_mx', async () => {
      expect(await resolveMxStatus(zones, 'null-and-invalid.example')).toEqual({
        status: 'null_mx',
        host: null,
      });
    });

    test('as the only MX record makes the check reject with no_mail_server and a null mx.host', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: zones });
      const result = await checker.check('someone@formula-mx.example');
      expect(result.mx).toEqual({ status: 'none', host: null });
      expect(result.verdict).toBe('reject');
      expect(result.reasons).toEqual(['no_mail_server']);
    });
  });

  describe('a valid MX host name at the limits is still found', () => {
    test.each([
      ['a trailing dot and upper case', 'MX.Limits.Example.', 'mx.limits.example'],
      ['a label of 63 characters', `${'a'.repeat(63)}.example`, `${'a'.repeat(63)}.example`],
      [
        'a name of 253 characters',
        `${'a'.repeat(62)}.${'b'.repeat(62)}.${'c'.repeat(62)}.${'d'.repeat(56)}.example`,
        `${'a'.repeat(62)}.${'b'.repeat(62)}.${'c'.repeat(62)}.${'d'.repeat(56)}.example`,
      ],
      ['inner hyphens and digits', 'mx-01.mail-2.example', 'mx-01.mail-2.example'],
    ])('with %s', async (_case, exchange, host) => {
      const resolver = new ZoneResolver({ 'limits.example': { mx: [{ exchange, priority: 10 }] } });
      expect(await resolveMxStatus(resolver, 'limits.example')).toEqual({ status: 'found', host });
    });
  });
});
