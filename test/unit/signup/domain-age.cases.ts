import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { registrableDomain } from '../../../functions/lib/email/public-suffix.js';
import {
  createDomainAgeLookup,
  DOMAIN_AGE_CACHE_SECONDS,
  type DomainAgeCache,
  type DomainAgeLookup,
  InMemoryDomainAgeCache,
  parseRdapBootstrap,
  registrationDate,
  sharedBootstrap,
} from '../../../functions/lib/signup/domain-age.js';
import { RDAP_SNAPSHOT_FILE } from '../../../layers/build/rdap-bootstrap.js';
import { daysAgo, type RdapServer, startRdapServer } from '../../support/rdap-server.js';

// The RDAP client against a real RDAP server on loopback (test/support/rdap-server.ts), with the
// runtime's fetch and an in-memory cache; the clock is a variable.

const T0 = new Date('2026-03-01T12:00:00Z');
let now = T0;
const clock = { now: () => now };
/**
 * The RDAP timeout of a lookup whose server answers: far above a loopback answer, even the first
 * on a loaded 2-core machine (at 250 ms one failed under the full suite). Waits that must end by
 * the timeout take their own, short ones.
 */
const TIMEOUT_MS = 10_000;
/** For a server that never answers: the wait is this long. */
const NEVER_ANSWERS_TIMEOUT_MS = 250;

let rdap: RdapServer;

describe('domain-age', () => {
  beforeAll(async () => {
    rdap = await startRdapServer({
      tlds: ['example', 'uk'],
      answer: (domain) => {
        switch (domain) {
          case 'old-shop.example':
          case 'cached.example':
          case 'ttl.example':
            return { registered: '2015-06-01T00:00:00Z' };
          case 'fresh-shop.example':
            return { registered: daysAgo(5, T0.getTime()) };
          case 'shop.co.uk':
            return { registered: '2001-01-01T00:00:00Z' };
          case 'nodate.example':
            return 'no_date';
          case 'broken.example':
            return 'error';
          case 'slow.example':
            return 'silent';
          default:
            return 'not_found';
        }
      },
    });
  });
  afterAll(async () => {
    await rdap.close();
  });

  function lookupWith(
    cache: DomainAgeCache = new InMemoryDomainAgeCache(clock),
    timeoutMs = TIMEOUT_MS,
  ): DomainAgeLookup {
    const bootstrap = parseRdapBootstrap(rdap.bootstrap());
    return createDomainAgeLookup({
      bootstrap: async () => bootstrap,
      fetch: (url, init) => fetch(url, init),
      cache,
      clock,
      timeoutMs,
    });
  }

  describe('the IANA bootstrap (RFC 9224)', () => {
    test('the longest matching entry wins, https is preferred and base URLs end in a slash', () => {
      const bootstrap = parseRdapBootstrap({
        version: '1.0',
        services: [
          [
            ['com', 'NET.'],
            ['http://rdap.verisign.example/com/v1/', 'https://rdap.verisign.example/com/v1'],
          ],
          [['uk'], ['https://rdap.nominet.example/uk/']],
          [['co.uk'], ['https://rdap.co-uk.example/']],
          [['plain'], ['http://rdap.plain.example']],
        ],
      });
      expect(bootstrap.baseUrlFor('shop.com')).toBe('https://rdap.verisign.example/com/v1/');
      expect(bootstrap.baseUrlFor('shop.net')).toBe('https://rdap.verisign.example/com/v1/');
      expect(bootstrap.baseUrlFor('Shop.CO.UK')).toBe('https://rdap.co-uk.example/');
      expect(bootstrap.baseUrlFor('shop.org.uk')).toBe('https://rdap.nominet.example/uk/');
      expect(bootstrap.baseUrlFor('x.plain')).toBe('http://rdap.plain.example/');
      expect(bootstrap.baseUrlFor('shop.unknowntld')).toBeNull();
      expect(bootstrap.size).toBe(5);
    });

    test('a file that is not a bootstrap is refused', () => {
      expect(() => parseRdapBootstrap({ services: [['com', 'https://x/']] })).toThrow();
      expect(() => parseRdapBootstrap([])).toThrow();
    });

    test('the shipped snapshot is an IANA bootstrap covering the common TLDs', async () => {
      const bootstrap = parseRdapBootstrap(JSON.parse(await readFile(RDAP_SNAPSHOT_FILE, 'utf8')));
      expect(bootstrap.baseUrlFor('example.com')).toBe('https://rdap.verisign.com/com/v1/');
      expect(bootstrap.baseUrlFor('example.net')).toBe('https://rdap.verisign.com/net/v1/');
      expect(bootstrap.baseUrlFor('example.org')).toBe('https://rdap.publicinterestregistry.org/rdap/');
      expect(bootstrap.baseUrlFor('example.co.uk')).toBe('https://rdap.nominet.uk/uk/');
      for (const tld of ['info', 'biz', 'dev', 'app', 'xyz', 'online', 'site', 'top', 'fr', 'nl']) {
        expect(bootstrap.baseUrlFor(`example.${tld}`)).toMatch(/^https:\/\/.+\/$/);
      }
    });
  });

  describe('reading an RDAP domain answer', () => {
    test('the registration event gives the date; other events do not', () => {
      expect(
        registrationDate({
          events: [
            { eventAction: 'expiration', eventDate: '2030-01-01T00:00:00Z' },
            { eventAction: 'registration', eventDate: '1997-09-15T04:00:00Z' },
          ],
        }),
      ).toEqual(new Date('1997-09-15T04:00:00Z'));
      expect(
        registrationDate({ events: [{ eventAction: 'last changed', eventDate: '2020-01-01' }] }),
      ).toBeNull();
      expect(registrationDate({ events: [{ eventAction: 'registration', eventDate: 'soon' }] })).toBeNull();
      expect(registrationDate({})).toBeNull();
      expect(registrationDate('not json object')).toBeNull();
    });

    test('the registered domain is asked about, public-suffix aware', () => {
      expect(registrableDomain('mail.shop.co.uk')).toBe('shop.co.uk');
      expect(registrableDomain('shop.example')).toBe('shop.example');
      expect(registrableDomain('a.b.shop.com')).toBe('shop.com');
      expect(registrableDomain('user.blogspot.com')).toBe('blogspot.com'); // private suffixes are not registries
      expect(registrableDomain('co.uk')).toBeNull();
    });
  });

  describe('domain age over RDAP', () => {
    test('a registered domain has its age in whole days from the registration event', async () => {
      now = T0;
      const age = await lookupWith().ageDays('old-shop.example');
      expect(age).toBe(Math.floor((T0.getTime() - Date.parse('2015-06-01T00:00:00Z')) / 86_400_000));
    });

    test('a domain registered 5 days ago is 5 days old', async () => {
      now = T0;
      expect(await lookupWith().ageDays('fresh-shop.example')).toBe(5);
    });

    test('a subdomain is answered for its registered domain', async () => {
      now = T0;
      const before = rdap.count('shop.co.uk');
      expect(await lookupWith().ageDays('mail.shop.co.uk')).toBeGreaterThan(9000);
      expect(rdap.count('shop.co.uk')).toBe(before + 1);
      expect(rdap.count('mail.shop.co.uk')).toBe(0);
    });

    test('404, no registration date, server error and timeout are all unknown (null)', async () => {
      now = T0;
      const lookup = lookupWith();
      expect(await lookup.ageDays('missing.example')).toBeNull();
      expect(await lookup.ageDays('nodate.example')).toBeNull();
      expect(await lookup.ageDays('broken.example')).toBeNull();
      // slow.example never answers: an answer at all means the timeout ended the wait.
      const impatient = lookupWith(new InMemoryDomainAgeCache(clock), NEVER_ANSWERS_TIMEOUT_MS);
      expect(await impatient.ageDays('slow.example')).toBeNull();
    });

    test('an unknown registry (TLD not in the bootstrap) is null without any query', async () => {
      const before = rdap.total();
      expect(await lookupWith().ageDays('shop.unknowntld')).toBeNull();
      expect(rdap.total()).toBe(before);
    });

    test('a cached answer makes no second RDAP query, and a found date is kept for 7 days', async () => {
      now = T0;
      const lookup = lookupWith();
      expect(await lookup.ageDays('cached.example')).not.toBeNull();
      expect(await lookup.ageDays('cached.example')).not.toBeNull();
      expect(rdap.count('cached.example')).toBe(1);
      // The age is computed from the cached date: a day later it is one day more, still no query.
      const first = await lookup.ageDays('cached.example');
      now = new Date(T0.getTime() + 6 * 86_400_000);
      expect(await lookup.ageDays('cached.example')).toBe((first as number) + 6);
      expect(rdap.count('cached.example')).toBe(1);
      now = new Date(T0.getTime() + DOMAIN_AGE_CACHE_SECONDS.found * 1000 + 1000);
      await lookup.ageDays('cached.example');
      expect(rdap.count('cached.example')).toBe(2);
    });

    test('a negative answer is cached for a day, a failure for an hour', async () => {
      now = T0;
      const lookup = lookupWith();
      await lookup.ageDays('gone-for-a-day.example');
      await lookup.ageDays('gone-for-a-day.example');
      expect(rdap.count('gone-for-a-day.example')).toBe(1);
      await lookup.ageDays('broken.example');
      const brokenBefore = rdap.count('broken.example');
      await lookup.ageDays('broken.example');
      expect(rdap.count('broken.example')).toBe(brokenBefore);

      now = new Date(T0.getTime() + DOMAIN_AGE_CACHE_SECONDS.transient * 1000 + 1000);
      await lookup.ageDays('broken.example');
      expect(rdap.count('broken.example')).toBe(brokenBefore + 1);
      await lookup.ageDays('gone-for-a-day.example');
      expect(rdap.count('gone-for-a-day.example')).toBe(1);

      now = new Date(T0.getTime() + DOMAIN_AGE_CACHE_SECONDS.absent * 1000 + 1000);
      await lookup.ageDays('gone-for-a-day.example');
      expect(rdap.count('gone-for-a-day.example')).toBe(2);
      expect(DOMAIN_AGE_CACHE_SECONDS).toEqual({ found: 604_800, absent: 86_400, transient: 3_600 });
    });

    test('a failing cache or bootstrap never fails the lookup', async () => {
      now = T0;
      const failing: DomainAgeCache = {
        get: async () => {
          throw new Error('table unavailable');
        },
        put: async () => {
          throw new Error('table unavailable');
        },
      };
      const errors: string[] = [];
      const lookup = createDomainAgeLookup({
        bootstrap: async () => parseRdapBootstrap(rdap.bootstrap()),
        fetch: (url, init) => fetch(url, init),
        cache: failing,
        clock,
        timeoutMs: TIMEOUT_MS,
        onError: (message) => errors.push(message),
      });
      expect(await lookup.ageDays('old-shop.example')).toBeGreaterThan(3000);
      expect(errors).toEqual(['domain-age cache read failed', 'domain-age cache write failed']);

      const noBootstrap = createDomainAgeLookup({
        bootstrap: async () => {
          throw new Error('no file');
        },
        fetch: (url, init) => fetch(url, init),
        cache: new InMemoryDomainAgeCache(clock),
        clock,
      });
      expect(await noBootstrap.ageDays('old-shop.example')).toBeNull();
    });

    test('a bootstrap still loading is waited for within the timeout only, and serves the lookups after it', async () => {
      now = T0;
      let loaded: (bootstrap: ReturnType<typeof parseRdapBootstrap>) => void = () => undefined;
      const loading = new Promise<ReturnType<typeof parseRdapBootstrap>>((resolve) => {
        loaded = resolve;
      });
      const errors: string[] = [];
      const lookup = createDomainAgeLookup({
        bootstrap: () => loading,
        fetch: (url, init) => fetch(url, init),
        cache: new InMemoryDomainAgeCache(clock),
        clock,
        // Long enough for the answer after the load, short for the wait on a load that never ends.
        timeoutMs: 2_000,
        onError: (message) => errors.push(message),
      });
      // The load never ends during the first lookup: unknown once the timeout passes, not a hang.
      expect(await lookup.ageDays('old-shop.example')).toBeNull();
      expect(errors).toEqual(['RDAP bootstrap unavailable']);
      loaded(parseRdapBootstrap(rdap.bootstrap()));
      expect(await lookup.ageDays('old-shop.example')).toBeGreaterThan(3000);
    });
  });

  describe('the RDAP bootstrap is loaded once per container', () => {
    test('a failed load is kept for a minute, not fetched again by every uncached signup', async () => {
      let clockMs = 0;
      const fakeClock = { now: () => new Date(clockMs) };
      let loads = 0;
      let fail = true;
      const bootstrap = sharedBootstrap(async () => {
        loads++;
        if (fail) throw new Error('bootstrap URL unreachable');
        return parseRdapBootstrap(rdap.bootstrap());
      }, fakeClock);

      await expect(bootstrap()).rejects.toThrow('unreachable');
      clockMs = 59_999;
      await expect(bootstrap()).rejects.toThrow('unreachable');
      expect(loads).toBe(1);

      fail = false;
      clockMs = 60_000;
      await expect(bootstrap()).resolves.toBeDefined();
      clockMs = 600_000;
      await bootstrap();
      expect(loads).toBe(2);
    });
  });
});
