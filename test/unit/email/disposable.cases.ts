import { describe, expect, test } from '@jest/globals';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { emailListsFrom } from '../../../functions/lib/email/lists.js';
import { InMemoryMxHostTable } from '../../../functions/lib/email/mx-hosts.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

const resolver = new ZoneResolver({
  // A fresh disposable domain that receives on the seeded service's servers.
  'fresh-temp.example': { mx: [{ exchange: 'in.tempmx.example', priority: 10 }] },
  // Hardening: every listed domain pointed at one small shared host (a lapsed domain re-registered
  // by someone), and an ordinary company's domain on that host.
  'throwaway.example': { mx: [{ exchange: 'mx.small-host.example', priority: 10 }] },
  'tempbox.example': { mx: [{ exchange: 'mx.small-host.example', priority: 10 }] },
  'burner.test': { mx: [{ exchange: 'MX.Small-Host.example.', priority: 10 }] },
  'inbox.tempbox.example': { mx: [{ exchange: 'mx.small-host.example', priority: 10 }] },
  'acme-widgets.example': { mx: [{ exchange: 'mx.small-host.example', priority: 10 }] },
  // An allowlisted domain served by a known disposable mail server.
  'falsepositive.example': { mx: [{ exchange: 'in.tempmx.example', priority: 10 }] },
});

async function checker() {
  const lists = await fixtureLists();
  return createEmailChecker({ lists, resolver });
}

describe('disposable', () => {
  describe('isDisposable and disposableSource', () => {
    test('a listed domain is disposable with source list', async () => {
      const result = await (await checker()).check('someone@throwaway.example');
      expect(result.isDisposable).toBe(true);
      expect(result.disposableSource).toBe('list');
      expect(result.verdict).toBe('reject');
      expect(result.reasons).toContain('disposable_domain');
    });

    test('a subdomain of a listed domain is disposable with source parent_domain', async () => {
      const result = await (await checker()).check('someone@inbox.eu.throwaway.example');
      expect(result.isDisposable).toBe(true);
      expect(result.disposableSource).toBe('parent_domain');
    });

    test('a domain whose mail server serves known disposable domains is disposable with source mx_host', async () => {
      const result = await (await checker()).check('someone@fresh-temp.example');
      expect(result.mx).toEqual({ status: 'found', host: 'in.tempmx.example' });
      expect(result.isDisposable).toBe(true);
      expect(result.disposableSource).toBe('mx_host');
    });

    test('the allowlist is respected: an allowlisted domain is never disposable, even on a known disposable server', async () => {
      const lists = await fixtureLists();
      expect(lists.disposable.has('falsepositive.example')).toBe(false);
      const result = await (await checker()).check('someone@falsepositive.example');
      expect(result.isDisposable).toBe(false);
      expect(result.disposableSource).toBeNull();
    });

    test('an ordinary domain is not disposable and disposableSource is null', async () => {
      const result = await (await checker()).check('someone@example.com');
      expect(result.isDisposable).toBe(false);
      expect(result.disposableSource).toBeNull();
    });

    test('example.com is never disposable: listed upstream, on a disposable mail server, or a subdomain', async () => {
      const lists = await fixtureLists();
      const files: Record<string, string> = {
        'disposable.txt': [...lists.disposable, 'example.com', 'example.org'].join('\n'),
        'free.txt': [...lists.free].join('\n'),
        'role.txt': [...lists.role].join('\n'),
        'mx-hosts.txt': lists.mxHostSeeds.join('\n'),
      };
      const listed = await emailListsFrom(async (file) => files[file]);
      const served = new ZoneResolver({
        'example.net': { mx: [{ exchange: 'in.tempmx.example', priority: 10 }] },
      });
      const check = createEmailChecker({ lists: listed, resolver: served });
      for (const email of ['a@example.com', 'a@mail.example.org', 'a@example.net']) {
        const result = await check.check(email);
        expect([email, result.isDisposable, result.reasons]).toEqual([
          email,
          false,
          expect.not.arrayContaining(['disposable_domain']),
        ]);
      }
      expect((await check.check('a@throwaway.example')).isDisposable).toBe(true);
    });

    test('isDisposable is always false when syntaxValid is false', async () => {
      const result = await (await checker()).check('some one@throwaway.example');
      expect(result.syntaxValid).toBe(false);
      expect(result.isDisposable).toBe(false);
    });

    test('a domain is matched case-insensitively', async () => {
      const result = await (await checker()).check('Someone@ThrowAway.EXAMPLE');
      expect(result.disposableSource).toBe('list');
    });
  });

  describe('MX-host table', () => {
    test('an entry matches the host and any host below it', () => {
      const table = new InMemoryMxHostTable(['tempmx.example']);
      expect(table.has('tempmx.example')).toBe(true);
      expect(table.has('MX2.In.TempMX.example.')).toBe(true);
      expect(table.has('nottempmx.example')).toBe(false);
      expect(table.has('example')).toBe(false);
    });
  });

  describe('learned data does not cross accounts (hardening)', () => {
    // One checker serves every account of a container (functions/lib/runtime/email.ts), so account A's
    // and account B's requests below are calls on the same checker, as in production.
    test("account A checking listed domains on a shared host leaves account B's domain on it not disposable", async () => {
      const shared = await checker();
      const accountB = 'jane@acme-widgets.example';
      const before = await shared.check(accountB);

      // Account A: single checks and a batch, every listed domain resolving to mx.small-host.example.
      for (const email of ['a@throwaway.example', 'b@tempbox.example', 'c@burner.test']) {
        expect((await shared.check(email)).mx?.host).toBe('mx.small-host.example');
      }
      await shared.checkMany(['d@throwaway.example', 'e@tempbox.example', 'f@inbox.tempbox.example']);

      const after = await shared.check(accountB);
      expect(after).toEqual(before);
      expect(after).toMatchObject({ isDisposable: false, disposableSource: null, verdict: 'accept' });
      expect((await shared.checkMany([accountB]))[0]).toEqual(before);
      expect(shared.mxHosts.has('mx.small-host.example')).toBe(false);
    });
  });
});
