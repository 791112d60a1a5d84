import { describe, expect, test } from '@jest/globals';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import type { EmailLists } from '../../../functions/lib/email/lists.js';
import {
  compileEmailRules,
  DEFAULT_EMAIL_RULES,
  EMAIL_RULES_MAX_ENTRIES,
  EmailRulesSchema,
  emailRuleEntries,
} from '../../../functions/lib/email/rules.js';
import { EmailCheckResultSchema } from '../../../functions/lib/email/schema.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

// An account's email rules: the document's normalisation and refusals, the compiled matchers, and
// what they change in the email check.

const rules = (input: unknown) => compileEmailRules(EmailRulesSchema.parse(input));

/** The issues of a refused document, as [path, message]. */
function refusals(input: unknown): [string, string][] {
  const parsed = EmailRulesSchema.safeParse(input);
  expect(parsed.success).toBe(false);
  return parsed.error!.issues.map((issue) => [issue.path.join('.'), issue.message]);
}

/** Fixture lists with a relay domain; hotmail.com is a common provider of the fixtures. */
async function lists(): Promise<EmailLists> {
  return { ...(await fixtureLists()), relays: new Map([['mozmail.com', 'Firefox Relay']]) };
}

/** Zones: shop.example's mail on a hosted service; throwaway.example is on the fixtures' disposable list. */
const zones = new ZoneResolver({
  'shop.example': { mx: [{ exchange: 'mx1.mailhost.example', priority: 10 }] },
  'tempmx-user.example': { mx: [{ exchange: 'in.tempmx.example', priority: 10 }] },
});

async function checker() {
  return createEmailChecker({ lists: await lists(), resolver: zones });
}

describe('rules', () => {
  describe('the rules document', () => {
    test('every field may be left out: the defaults', () => {
      expect(EmailRulesSchema.parse({})).toEqual(DEFAULT_EMAIL_RULES);
      expect(DEFAULT_EMAIL_RULES).toEqual({
        allow: { domains: [], mxHosts: [] },
        block: { domains: [], mxHosts: [], tlds: [] },
        relayAliases: 'accept',
      });
      expect(EmailRulesSchema.parse({ block: { tlds: ['zip'] } })).toEqual({
        allow: { domains: [], mxHosts: [] },
        block: { domains: [], mxHosts: [], tlds: ['zip'] },
        relayAliases: 'accept',
      });
    });

    test('entries are trimmed, lowercased, in punycode, without a trailing dot or duplicates', () => {
      const parsed = EmailRulesSchema.parse({
        allow: {
          domains: [' Partner.Example ', 'bücher.example', 'partner.example', 'xn--bcher-kva.example'],
        },
        block: { mxHosts: ['MX.Spam.Example.'], tlds: ['.ZIP', 'zip', 'рф'] },
        relayAliases: 'review',
      });
      expect(parsed).toEqual({
        allow: { domains: ['partner.example', 'xn--bcher-kva.example'], mxHosts: [] },
        block: { domains: [], mxHosts: ['mx.spam.example'], tlds: ['zip', 'xn--p1ai'] },
        relayAliases: 'review',
      });
      // Normalised rules parse to themselves (they are kept and read again).
      expect(EmailRulesSchema.parse(JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
      expect(emailRuleEntries(parsed)).toBe(5);
    });

    test('names that are not DNS names are refused, each with its path', () => {
      expect(
        refusals({
          allow: { domains: ['*.example.com', '.example.com', 'com', 'jane@example.com'] },
          block: {
            domains: ['bad_name.example', `${'a'.repeat(64)}.example`, 'a..example', '-a.example'],
            mxHosts: [`${'a.'.repeat(126)}example`, ''],
            tlds: ['co.uk', '123', ''],
          },
        }),
      ).toEqual([
        ['allow.domains.0', expect.stringContaining('leading "*." or "."')],
        ['allow.domains.1', expect.stringContaining('leading "*." or "."')],
        ['allow.domains.2', expect.stringContaining('block.tlds')],
        ['allow.domains.3', expect.stringContaining('not an email address')],
        ['block.domains.0', expect.stringContaining('not a valid DNS name')],
        ['block.domains.1', expect.stringContaining('not a valid DNS name')],
        ['block.domains.2', expect.stringContaining('not a valid DNS name')],
        ['block.domains.3', expect.stringContaining('not a valid DNS name')],
        ['block.mxHosts.0', expect.stringContaining('not a valid DNS name')],
        ['block.mxHosts.1', expect.stringContaining('not a valid DNS name')],
        ['block.tlds.0', expect.stringContaining('one top-level label')],
        ['block.tlds.1', expect.stringContaining('not a valid top-level domain')],
        ['block.tlds.2', expect.stringContaining('not a valid top-level domain')],
      ]);
    });

    test('unknown fields, a wrong type and an unknown relay policy are refused', () => {
      expect(refusals({ blocks: { domains: ['x.example'] } })[0]![0]).toBe('');
      expect(refusals({ allow: { domain: [] } })[0]![0]).toBe('allow');
      expect(refusals({ allow: { domains: 'x.example' } })[0]![0]).toBe('allow.domains');
      expect(refusals({ block: { tlds: [42] } })[0]![0]).toBe('block.tlds.0');
      expect(refusals({ relayAliases: 'block' })[0]![0]).toBe('relayAliases');
    });

    test(`at most ${EMAIL_RULES_MAX_ENTRIES} entries in all the lists together: exactly the limit passes, one more is refused`, () => {
      const names = (n: number, prefix: string) =>
        Array.from({ length: n }, (_, i) => `${prefix}${i}.example`);
      const atLimit = {
        allow: { domains: names(2000, 'a'), mxHosts: names(1000, 'h') },
        block: { domains: names(1000, 'b'), mxHosts: names(999, 'm'), tlds: ['zip'] },
      };
      const parsed = EmailRulesSchema.parse(atLimit);
      expect(emailRuleEntries(parsed)).toBe(5_000);
      expect(refusals({ ...atLimit, block: { ...atLimit.block, tlds: ['zip', 'mov'] } })).toEqual([
        ['block.tlds', `at most ${EMAIL_RULES_MAX_ENTRIES} entries in all the lists together`],
      ]);
      // Duplicates are not counted.
      expect(
        emailRuleEntries(
          EmailRulesSchema.parse({
            ...atLimit,
            allow: { ...atLimit.allow, domains: [...atLimit.allow.domains, 'a0.example'] },
          }),
        ),
      ).toBe(5_000);
      // One list of more than the limit once its duplicates are dropped is refused; the limit
      // counts what is kept, so the limit and a repeat (also spelt otherwise) pass.
      expect(refusals({ allow: { domains: names(5_001, 'x') } })).toEqual([
        ['allow.domains', `at most ${EMAIL_RULES_MAX_ENTRIES} entries`],
      ]);
      const repeated = EmailRulesSchema.parse({
        allow: { domains: [...names(5_000, 'x'), 'x0.example', 'X1.Example.'] },
      });
      expect(repeated.allow.domains).toHaveLength(5_000);
    });
  });

  describe('the compiled rules', () => {
    test('a domain entry covers the domain and its subdomains, label by label', () => {
      const compiled = rules({ allow: { domains: ['example.com'] }, block: { domains: ['bad.example'] } });
      expect(compiled.allowsDomain('example.com')).toBe(true);
      expect(compiled.allowsDomain('a.b.example.com')).toBe(true);
      expect(compiled.allowsDomain('notexample.com')).toBe(false);
      expect(compiled.allowsDomain('example.com.evil.example')).toBe(false);
      expect(compiled.blocksDomain('mail.bad.example')).toBe(true);
      expect(compiled.blocksDomain('example.com')).toBe(false);
    });

    test('an mxHosts entry matches the host and hosts ending in .<entry>, whatever the case or a trailing dot', () => {
      const compiled = rules({ allow: { mxHosts: ['google.com'] }, block: { mxHosts: ['spam.example'] } });
      expect(compiled.allowsMxHost('aspmx.l.GOOGLE.com.')).toBe(true);
      expect(compiled.allowsMxHost('google.com')).toBe(true);
      expect(compiled.allowsMxHost('notgoogle.com')).toBe(false);
      expect(compiled.blocksMxHost('mx.spam.example')).toBe(true);
    });

    test('a TLD entry matches the last label only', () => {
      const compiled = rules({ block: { tlds: ['zip'] } });
      expect(compiled.blocksTld('files.zip')).toBe(true);
      expect(compiled.blocksTld('zip.example')).toBe(false);
      expect(rules({}).blocksTld('files.zip')).toBe(false);
    });
  });

  describe('the rules in the email check', () => {
    test('without rules the results are those of before, for any address', async () => {
      const c = await checker();
      const emails = [
        'jane@hotmial.com',
        'x@throwaway.example',
        'admin@shop.example',
        'x.y@mozmail.com',
        'bad',
      ];
      expect(await c.checkMany(emails, undefined)).toEqual(await c.checkMany(emails));
      for (const email of emails) expect(await c.check(email, rules({}))).toEqual(await c.check(email));
    });

    test('allow (domain): never disposable, no typo suggestion', async () => {
      const c = await checker();
      expect((await c.check('x@throwaway.example')).isDisposable).toBe(true);
      const allowed = await c.check(
        'x@sub.throwaway.example',
        rules({ allow: { domains: ['throwaway.example'] } }),
      );
      expect(allowed).toMatchObject({
        isDisposable: false,
        disposableSource: null,
        verdict: 'accept',
        reasons: [],
      });
      expect((await c.check('jane@hotmial.com')).didYouMean).toBe('jane@hotmail.com');
      const typo = await c.check('jane@hotmial.com', rules({ allow: { domains: ['hotmial.com'] } }));
      expect(typo).toMatchObject({ didYouMean: null, verdict: 'accept', reasons: [] });
    });

    test('allow (MX host): a domain whose mail server is allowed is not disposable by mx_host', async () => {
      const c = await checker();
      expect((await c.check('a@tempmx-user.example')).disposableSource).toBe('mx_host');
      const allowed = await c.check(
        'a@tempmx-user.example',
        rules({ allow: { mxHosts: ['tempmx.example'] } }),
      );
      expect(allowed).toMatchObject({ isDisposable: false, verdict: 'accept', reasons: [] });
    });

    test.each([
      ['domain', { domains: ['shop.example'] }, 'jane@shop.example'],
      ['subdomain', { domains: ['shop.example'] }, 'jane@eu.shop.example'],
      ['MX host', { mxHosts: ['mailhost.example'] }, 'jane@shop.example'],
      ['TLD', { tlds: ['example'] }, 'jane@shop.example'],
    ])('block by %s: reject with blocked_by_account', async (_, block, email) => {
      const c = await checker();
      const result = await c.check(email, rules({ block }));
      expect(EmailCheckResultSchema.parse(result)).toEqual(result);
      expect(result).toMatchObject({ verdict: 'reject', reasons: ['blocked_by_account'] });
    });

    test('block keeps the other reasons, listed after it', async () => {
      const c = await checker();
      const result = await c.check(
        'admin@throwaway.example',
        rules({ block: { domains: ['throwaway.example'] } }),
      );
      expect(result.reasons).toEqual(['blocked_by_account', 'disposable_domain', 'role_account']);
      expect(result.verdict).toBe('reject');
    });

    test('block wins over allow: a blocked address gets nothing from allow', async () => {
      const c = await checker();
      const both = rules({ allow: { domains: ['throwaway.example'] }, block: { tlds: ['example'] } });
      const result = await c.check('x@throwaway.example', both);
      expect(result).toMatchObject({ verdict: 'reject', isDisposable: true });
      expect(result.reasons).toEqual(['blocked_by_account', 'disposable_domain']);
      const byHost = rules({
        allow: { domains: ['shop.example'] },
        block: { mxHosts: ['mailhost.example'] },
      });
      expect(await c.check('jane@shop.example', byHost)).toMatchObject({
        verdict: 'reject',
        reasons: ['blocked_by_account'],
      });
    });

    test('relayAliases: accept adds nothing; review and reject add relay_alias with that verdict', async () => {
      const c = await checker();
      expect(await c.check('x.y@mozmail.com', rules({ relayAliases: 'accept' }))).toMatchObject({
        isRelayAlias: true,
        verdict: 'accept',
        reasons: [],
      });
      expect(await c.check('x.y@mozmail.com', rules({ relayAliases: 'review' }))).toMatchObject({
        verdict: 'review',
        reasons: ['relay_alias'],
      });
      const rejected = await c.check('admin@mozmail.com', rules({ relayAliases: 'reject' }));
      expect(rejected).toMatchObject({ verdict: 'reject', reasons: ['relay_alias', 'role_account'] });
      // Not a relay: the policy changes nothing.
      expect(await c.check('jane@shop.example', rules({ relayAliases: 'reject' }))).toMatchObject({
        verdict: 'accept',
        reasons: [],
      });
    });

    test('checkMany applies the rules to every address', async () => {
      const c = await checker();
      const results = await c.checkMany(
        ['x.y@mozmail.com', 'jane@shop.example', 'bad', 'x@files.zip'],
        rules({ block: { tlds: ['zip'] }, relayAliases: 'review' }),
      );
      expect(results.map((r) => [r.verdict, r.reasons])).toEqual([
        ['review', ['relay_alias']],
        ['accept', []],
        ['reject', ['invalid_syntax']],
        ['reject', ['blocked_by_account']],
      ]);
    });
  });
});
