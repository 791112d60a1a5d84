import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createEmailChecker, type EmailChecker } from '../../../functions/lib/email/check.js';
import { type EmailLists, loadEmailLists } from '../../../functions/lib/email/lists.js';
import { buildEmailLists, type ManifestEntry } from '../../../layers/build/email-lists.js';
import { ZoneResolver } from '../../unit/email/support/zone-resolver.js';

// Disposable matching against the REAL list contents, built from node_modules into a temp dir.

let dir: string;
let manifest: ManifestEntry[];
let lists: EmailLists;
let checker: EmailChecker;

describe('real-lists', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'email-lists-'));
    manifest = await buildEmailLists(dir);
    lists = await loadEmailLists(dir);
    const resolver = new ZoneResolver({
      'brand-new-temp.example': { mx: [{ exchange: 'mail.mailinator.com', priority: 10 }] },
    });
    checker = createEmailChecker({ lists, resolver });
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('real disposable lists', () => {
    test('the manifest names every source with version, licence and a non-zero count', () => {
      expect(manifest.map((entry) => entry.name)).toEqual([
        'disposable-email-domains-js',
        'burner-email-providers',
        'fakefilter',
        'disposable-email-domains allowlist',
        'email-providers',
        'role-based-email-addresses',
        'privacy-relay domains',
      ]);
      for (const entry of manifest) {
        expect(entry.version).not.toBe('');
        expect(entry.licence).not.toBe('');
        // The relay list is the project's own, a few dozen domains; the others are large public lists.
        expect(entry.count).toBeGreaterThan(entry.name === 'privacy-relay domains' ? 10 : 100);
      }
    });

    test('mailinator.com is disposable by list', async () => {
      const result = await checker.check('someone@mailinator.com');
      expect(result.isDisposable).toBe(true);
      expect(result.disposableSource).toBe('list');
    });

    test('a subdomain of a listed domain is disposable by parent_domain', async () => {
      const result = await checker.check('someone@inbox.mailinator.com');
      expect(result.disposableSource).toBe('parent_domain');
    });

    test('a new domain on a seeded disposable mail server is disposable by mx_host', async () => {
      const result = await checker.check('someone@brand-new-temp.example');
      expect(result.disposableSource).toBe('mx_host');
    });

    test('gmail.com is not disposable and is a free provider', async () => {
      const result = await checker.check('someone@gmail.com');
      expect(result.isDisposable).toBe(false);
      expect(result.isFreeProvider).toBe(true);
      expect(result.verdict).toBe('accept');
    });

    test('domains on the upstream allowlist are not disposable although other lists flag them', async () => {
      for (const domain of ['hush.com', '139.com', 'safe-mail.net']) {
        expect((await checker.check(`someone@${domain}`)).isDisposable).toBe(false);
      }
    });

    test('an internationalised list entry is stored in punycode', () => {
      expect(lists.disposable.has('xn--instgram-cza.com')).toBe(true);
    });

    test('a disposable typo domain is not on the free list, so it is still corrected', async () => {
      const result = await checker.check('someone@gmial.com');
      expect(result.isFreeProvider).toBe(false);
      expect(result.didYouMean).toBe('someone@gmail.com');
    });

    test('common role addresses are on the role list', () => {
      for (const role of ['admin', 'info', 'noreply', 'postmaster']) expect(lists.role.has(role)).toBe(true);
    });
  });
});
