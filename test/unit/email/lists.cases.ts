import { describe, expect, test } from '@jest/globals';
import {
  createEmailLists,
  emailDataDir,
  emailListsFrom,
  loadEmailLists,
} from '../../../functions/lib/email/lists.js';
import { FIXTURE_DIR } from './support/zone-resolver.js';

describe('lists', () => {
  describe('email lists', () => {
    test('the email data lives in the email directory of the data root', () => {
      expect(emailDataDir('/opt/data')).toBe('/opt/data/email');
    });

    test('lists load from a directory, comments and blank lines skipped', async () => {
      const lists = await loadEmailLists(FIXTURE_DIR);
      expect([...lists.disposable].sort()).toEqual(['burner.test', 'tempbox.example', 'throwaway.example']);
      expect(lists.role.has('admin')).toBe(true);
      expect(lists.free.has('gmail.com')).toBe(true);
      expect(lists.mxHostSeeds).toEqual(['tempmx.example']);
      expect(lists.commonProviders).toContain('gmail.com');
      expect(lists.commonTlds[0]).toBe('com');
    });

    test('allowlisted domains are removed from the disposable union', () => {
      const lists = createEmailLists({ disposable: ['a.example', 'b.example'], allowlist: ['b.example'] });
      expect([...lists.disposable]).toEqual(['a.example']);
    });

    test('the documentation domains of RFC 2606 are never disposable in the live lists, whatever they say', async () => {
      const files: Record<string, string> = {
        'disposable.txt': 'example.com\nexample.net\nexample.org\nx.example\n',
        'free.txt': '',
        'role.txt': '',
      };
      const lists = await emailListsFrom(async (file) => files[file]);
      expect([...lists.disposable]).toEqual(['x.example']);
      expect(lists.allowlist.has('example.com')).toBe(true);
    });

    test('a missing required list is an error', async () => {
      await expect(loadEmailLists('/nonexistent/email')).rejects.toThrow();
    });

    test('optional lists may be absent from any store; the common providers then keep their defaults', async () => {
      const files: Record<string, string> = {
        'disposable.txt': 'tempbox.example\n',
        'free.txt': 'gmail.com\n',
        'role.txt': 'admin\n',
        'common-providers.json': 'null',
      };
      const lists = await emailListsFrom(async (file) => files[file]);
      expect([...lists.disposable]).toEqual(['tempbox.example']);
      expect([...lists.allowlist]).toEqual(['example.com', 'example.net', 'example.org']);
      expect(lists.mxHostSeeds).toEqual([]);
      expect(lists.commonProviders).toContain('gmail.com');
    });

    test('a list missing from a store is an error when it is required', async () => {
      await expect(emailListsFrom(async (file) => (file === 'role.txt' ? undefined : ''))).rejects.toThrow(
        /role\.txt/,
      );
    });
  });
});
