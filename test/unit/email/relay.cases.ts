import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { type EmailLists, emailListsFrom } from '../../../functions/lib/email/lists.js';
import { formatRelayList, parseRelayList, relayProviderOf } from '../../../functions/lib/email/relay.js';
import { EmailCheckResultSchema } from '../../../functions/lib/email/schema.js';
import { CARRIED_EMAIL_FILES, carriedEmailFiles } from '../../../functions/lib/refresh/dir-store.js';
import { emailListsFromVersion } from '../../../functions/lib/refresh/email-version.js';
import { RELAYS_FILE, type RelayProvider, relayDomains } from '../../../layers/build/email-lists.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

// Privacy-relay aliases: the project's list (layers/build/email-relays.json) as the layer build
// reads it, and what the check makes of an address on one of its domains.

async function shippedRelays(): Promise<Map<string, string>> {
  return relayDomains(JSON.parse(await readFile(RELAYS_FILE, 'utf8')) as RelayProvider[]);
}

/** The fixture lists (hotmail.com is a common provider there) with the shipped relay domains. */
async function listsWithRelays(extra: Partial<EmailLists> = {}): Promise<EmailLists> {
  return { ...(await fixtureLists()), relays: await shippedRelays(), ...extra };
}

describe('relay', () => {
  describe('the relay list', () => {
    test('names every provider of the brief with its own documentation, and flags no ordinary mailbox provider', async () => {
      const providers = JSON.parse(await readFile(RELAYS_FILE, 'utf8')) as RelayProvider[];
      expect(providers.map((p) => p.provider)).toEqual([
        'Apple Hide My Email',
        'Firefox Relay',
        'DuckDuckGo Email Protection',
        'SimpleLogin',
        'addy.io',
        'Proton Pass',
        'Fastmail Masked Email',
      ]);
      for (const p of providers) {
        expect(p.source).toMatch(/^https:\/\//);
        expect(p.note.length).toBeGreaterThan(0);
      }
      const relays = await shippedRelays();
      expect(relays.get('mozmail.com')).toBe('Firefox Relay');
      expect(relays.get('privaterelay.appleid.com')).toBe('Apple Hide My Email');
      expect(relays.get('duck.com')).toBe('DuckDuckGo Email Protection');
      expect(relays.get('aleeas.com')).toBe('SimpleLogin');
      expect(relays.get('anonaddy.com')).toBe('addy.io');
      expect(relays.get('passmail.net')).toBe('Proton Pass');
      // Masked email is not recognisable by domain: listing these would flag every user.
      for (const domain of ['fastmail.com', 'icloud.com', 'gmail.com', 'proton.me', 'simplelogin.io']) {
        expect(relayProviderOf(domain, relays)).toBeNull();
      }
    });

    test('a bad entry fails the build rather than being dropped', () => {
      const ok = { provider: 'P', domains: ['p.example'], source: 'https://p.example/docs', note: '' };
      expect(relayDomains([ok]).get('p.example')).toBe('P');
      expect(() => relayDomains([{ ...ok, domains: ['not a domain'] }])).toThrow(/not a domain/);
      expect(() => relayDomains([ok, { ...ok, provider: 'Q' }])).toThrow(/listed twice/);
      expect(() => relayDomains([{ ...ok, source: 'http://p.example' }])).toThrow(/https source/);
      expect(() => relayDomains([{ ...ok, provider: '' }])).toThrow(/without a name/);
    });

    test('relays.txt reads back as written: domain<TAB>provider, comments and blank lines skipped', () => {
      const text = formatRelayList('header', [
        ['mozmail.com', 'Firefox Relay'],
        ['anonaddy.com', 'addy.io'],
      ]);
      expect(text).toBe('# header\nanonaddy.com\taddy.io\nmozmail.com\tFirefox Relay\n');
      expect([...parseRelayList(`${text}\n# c\nno-provider.example\n  DUCK.com\tDuckDuckGo  \n`)]).toEqual([
        ['anonaddy.com', 'addy.io'],
        ['mozmail.com', 'Firefox Relay'],
        ['duck.com', 'DuckDuckGo'],
      ]);
    });

    test('an entry covers its subdomains, never a bare top-level domain', () => {
      const relays = new Map([['anonaddy.com', 'addy.io']]);
      expect(relayProviderOf('anonaddy.com', relays)).toBe('addy.io');
      expect(relayProviderOf('jane.anonaddy.com', relays)).toBe('addy.io');
      expect(relayProviderOf('a.b.anonaddy.com', relays)).toBe('addy.io');
      expect(relayProviderOf('notanonaddy.com', relays)).toBeNull();
      expect(relayProviderOf('com', new Map([['com', 'X']]))).toBeNull();
    });

    test('the relay file is optional: absent, the map is empty (versions published before it still load)', async () => {
      const files: Record<string, string> = { 'disposable.txt': '', 'free.txt': '', 'role.txt': '' };
      expect((await emailListsFrom(async (file) => files[file])).relays.size).toBe(0);
      files['relays.txt'] = 'mozmail.com\tFirefox Relay\n';
      expect((await emailListsFrom(async (file) => files[file])).relays.get('mozmail.com')).toBe(
        'Firefox Relay',
      );
    });
  });

  describe('the relay file in published data versions', () => {
    const version = (files: Record<string, string>) => async (path: string) => {
      const text = files[path];
      if (text === undefined) throw new Error(`${path} is missing`);
      return new TextEncoder().encode(text);
    };
    const published = {
      'email/disposable.txt': 'tempbox.example\n',
      'email/allowlist.txt': '',
      'email/free.txt': 'gmail.com\n',
      'email/role.txt': 'admin\n',
      'email/mx-hosts.txt': '',
      'email/common-providers.json': 'null',
    };

    test('a version published before relays.txt existed still loads, with no relay domains', async () => {
      const lists = await emailListsFromVersion(version(published));
      expect(lists.relays.size).toBe(0);
      expect(lists.disposable.has('tempbox.example')).toBe(true);
      const withRelays = await emailListsFromVersion(
        version({ ...published, 'email/relays.txt': 'mozmail.com\tFirefox Relay\n' }),
      );
      expect(withRelays.relays.get('mozmail.com')).toBe('Firefox Relay');
    });

    test('a required file missing from a version still fails the load', async () => {
      const { 'email/role.txt': _role, ...withoutRole } = published;
      await expect(emailListsFromVersion(version(withoutRole))).rejects.toThrow(/role\.txt is missing/);
    });

    test("the refresh carries the layer's relays.txt into every version it publishes", async () => {
      expect(CARRIED_EMAIL_FILES).toContain('relays.txt');
      const root = await mkdtemp(join(tmpdir(), 'netintel-relays-'));
      try {
        await mkdir(join(root, 'email'));
        await writeFile(join(root, 'email', 'relays.txt'), 'mozmail.com\tFirefox Relay\n');
        const carried = await carriedEmailFiles(root);
        const relays = carried.find((f) => f.path === 'email/relays.txt');
        expect(relays?.contentType).toBe('text/plain; charset=utf-8');
        expect(new TextDecoder().decode(relays!.body)).toBe('mozmail.com\tFirefox Relay\n');
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    });
  });

  describe('a relay address in the email check', () => {
    test('x.y@mozmail.com is a Firefox Relay alias: not a typo of hotmail.com, not disposable, accepted', async () => {
      const checker = createEmailChecker({ lists: await listsWithRelays(), resolver: new ZoneResolver() });
      const result = await checker.check('x.y@mozmail.com');
      expect(EmailCheckResultSchema.parse(result)).toEqual(result);
      expect(result).toMatchObject({
        isRelayAlias: true,
        relayProvider: 'Firefox Relay',
        didYouMean: null,
        isDisposable: false,
        disposableSource: null,
        verdict: 'accept',
        reasons: [],
      });
      // When its mail server does not answer, the typo rule allows two edits: without the relay
      // list the address was the typo of hotmail.com it was reported as; with it, it is not.
      const unanswered = new ZoneResolver({ 'mozmail.com': { mx: 'failure' } });
      const before = createEmailChecker({ lists: await fixtureLists(), resolver: unanswered });
      expect((await before.check('x.y@mozmail.com')).didYouMean).toBe('x.y@hotmail.com');
      const after = createEmailChecker({ lists: await listsWithRelays(), resolver: unanswered });
      expect(await after.check('x.y@mozmail.com')).toMatchObject({
        isRelayAlias: true,
        didYouMean: null,
        reasons: ['dns_unavailable'],
      });
    });

    test("an addy.io alias on the user's username subdomain is a relay alias", async () => {
      const checker = createEmailChecker({ lists: await listsWithRelays(), resolver: new ZoneResolver() });
      const result = await checker.check('shop@jane.anonaddy.com');
      expect(result).toMatchObject({ isRelayAlias: true, relayProvider: 'addy.io', verdict: 'accept' });
    });

    test('a relay alias is never disposable, even when a disposable list or the MX-host table lists it', async () => {
      const lists = await listsWithRelays({
        disposable: new Set(['mozmail.com', 'duck.com']),
        mxHostSeeds: ['relay-mx.example'],
      });
      const checker = createEmailChecker({
        lists,
        resolver: new ZoneResolver({
          'passmail.net': { mx: [{ exchange: 'in.relay-mx.example', priority: 10 }] },
        }),
      });
      for (const email of ['a@mozmail.com', 'b@sub.duck.com', 'c@passmail.net']) {
        const result = await checker.check(email);
        expect(result).toMatchObject({ isRelayAlias: true, isDisposable: false, disposableSource: null });
        expect(result.reasons).toEqual([]);
      }
      // The same MX host still makes another domain disposable.
      const other = createEmailChecker({
        lists,
        resolver: new ZoneResolver({
          'new.example': { mx: [{ exchange: 'in.relay-mx.example', priority: 10 }] },
        }),
      });
      expect((await other.check('d@new.example')).disposableSource).toBe('mx_host');
    });

    test('other reasons of a relay address are still reported (role account, mail server)', async () => {
      const checker = createEmailChecker({
        lists: await listsWithRelays(),
        resolver: new ZoneResolver({ 'duck.com': { mx: 'failure' } }),
      });
      const result = await checker.check('admin@duck.com');
      expect(result).toMatchObject({
        isRelayAlias: true,
        verdict: 'review',
        reasons: ['role_account', 'dns_unavailable'],
      });
    });

    test('an ordinary address is not a relay alias', async () => {
      const checker = createEmailChecker({ lists: await listsWithRelays(), resolver: new ZoneResolver() });
      expect(await checker.check('jane@gmail.com')).toMatchObject({
        isRelayAlias: false,
        relayProvider: null,
      });
      expect(await checker.check('invalid')).toMatchObject({ isRelayAlias: false, relayProvider: null });
    });
  });
});
