import { describe, expect, test } from '@jest/globals';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { InMemoryMxHostTable } from '../../../functions/lib/email/mx-hosts.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

const resolver = new ZoneResolver({
  // A fresh disposable domain that receives on the seeded service's servers.
  'fresh-temp.example': { mx: [{ exchange: 'in.tempmx.example', priority: 10 }] },
  // A listed domain and an unlisted one that share a mail server.
  'tempbox.example': { mx: [{ exchange: 'mx1.rotating-host.example', priority: 10 }] },
  'rotated.example': { mx: [{ exchange: 'mx1.rotating-host.example', priority: 5 }] },
  // A listed domain on a mail server under another listed domain, and a new domain on a sibling host.
  'inbox.tempbox.example': { mx: [{ exchange: 'mx9.throwaway.example', priority: 10 }] },
  'sibling.example': { mx: [{ exchange: 'mx1.throwaway.example', priority: 10 }] },
  // A listed domain hosted on a shared mail service, and an ordinary customer of that service.
  'burner.test': { mx: [{ exchange: 'aspmx.l.google.com', priority: 1 }] },
  'customer.example': { mx: [{ exchange: 'aspmx.l.google.com', priority: 1 }] },
  // An allowlisted domain served by a known disposable mail server.
  'falsepositive.example': { mx: [{ exchange: 'in.tempmx.example', priority: 10 }] },
});

async function checker() {
  const lists = await fixtureLists();
  return createEmailChecker({ lists, resolver, mxHosts: new InMemoryMxHostTable(lists.mxHostSeeds) });
}

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

  test('the MX host of a listed domain is learned, so other domains on it become disposable via mx_host', async () => {
    const emailChecker = await checker();
    expect((await emailChecker.check('a@rotated.example')).isDisposable).toBe(false);

    await emailChecker.check('b@tempbox.example');
    const after = await emailChecker.check('a@rotated.example');

    expect(after.isDisposable).toBe(true);
    expect(after.disposableSource).toBe('mx_host');
    expect(emailChecker.mxHosts.has('mx1.rotating-host.example')).toBe(true);
  });

  test('when a learned MX host lies under a listed domain, that whole domain is learned', async () => {
    const emailChecker = await checker();
    await emailChecker.check('b@inbox.tempbox.example');
    const sibling = await emailChecker.check('a@sibling.example');
    expect(sibling.disposableSource).toBe('mx_host');
  });

  test('the MX host of a listed domain on a shared mail service is not learned', async () => {
    const emailChecker = await checker();
    await emailChecker.check('b@burner.test');
    const customer = await emailChecker.check('a@customer.example');
    expect(customer.isDisposable).toBe(false);
    expect(emailChecker.mxHosts.has('aspmx.l.google.com')).toBe(false);
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

  test('learned hosts are bounded, oldest evicted first', () => {
    const table = new InMemoryMxHostTable([], 2);
    table.add('a.example');
    table.add('b.example');
    table.add('c.example');
    expect(table.has('a.example')).toBe(false);
    expect(table.has('c.example')).toBe(true);
    expect(table.size).toBe(2);
  });
});
