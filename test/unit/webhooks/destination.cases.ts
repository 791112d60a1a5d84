import type { LookupAddress } from 'node:dns';
import { request } from 'node:http';
import { describe, expect, test } from '@jest/globals';
import {
  DestinationRefusedError,
  guardedLookup,
  parseDestination,
  type Resolve,
} from '../../../functions/lib/webhooks/destination.js';

// Where webhooks may go: never a private, loopback, link-local (the metadata service), shared or
// reserved address, whether the URL names it or a name resolves to it at delivery time. Every
// resolver here is a stub: no test connects anywhere but loopback.

const LIVE = { allowLoopback: false };
const LOCAL = { allowLoopback: true };

/** A resolver that answers from a table and records what it was asked. */
function stubResolver(table: Record<string, readonly string[]>): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    return (table[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

describe('webhook destinations', () => {
  test('an https URL with a public host or address is accepted', () => {
    for (const url of [
      'https://hooks.shop.example/netintel',
      'https://8.8.8.8/x',
      'https://[2001:4860:4860::8888]/',
    ]) {
      expect(parseDestination(url, LIVE)).toMatchObject({ ok: true });
    }
  });

  test('private, loopback, link-local and metadata, shared, reserved and tunnelled addresses are refused at creation', () => {
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/',
      'https://192.168.1.10/',
      'https://172.16.0.1/',
      'https://100.64.0.1/',
      'https://127.0.0.1/',
      'https://0.0.0.0/',
      'https://[::1]/',
      'https://[fd00:ec2::254]/',
      'https://[fe80::1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[64:ff9b::a00:1]/',
      'https://[2002:a00:1::]/',
      'https://localhost/',
      'https://0x7f000001/',
      'https://2130706433/',
    ]) {
      expect([url, parseDestination(url, LIVE)]).toEqual([
        url,
        expect.objectContaining({ ok: false, reason: 'address' }),
      ]);
    }
    // Said in words with their article.
    expect(parseDestination('https://0.0.0.0/', LIVE)).toMatchObject({
      message: expect.stringContaining('0.0.0.0 is an unspecified address'),
    });
    expect(parseDestination('https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', LIVE)).toMatchObject({
      message: expect.stringContaining('is a translation or tunnel (NAT64, 6to4, Teredo) address'),
    });
  });

  test('http, credentials in the URL and what is not a URL are refused', () => {
    expect(parseDestination('http://hooks.shop.example/', LIVE)).toMatchObject({
      ok: false,
      reason: 'scheme',
    });
    expect(parseDestination('ftp://hooks.shop.example/', LIVE)).toMatchObject({
      ok: false,
      reason: 'scheme',
    });
    expect(parseDestination('https://u:p@hooks.shop.example/', LIVE)).toMatchObject({
      ok: false,
      reason: 'credentials',
    });
    expect(parseDestination('hooks.shop.example', LIVE)).toMatchObject({ ok: false, reason: 'invalid_url' });
    expect(parseDestination('https://hooks.shop.example:0/', LIVE)).toMatchObject({
      ok: false,
      reason: 'invalid_url',
      message: 'The port of the URL must be from 1 to 65535.',
    });
    expect(parseDestination('https://hooks.shop.example:8443/', LIVE)).toMatchObject({ ok: true });
    expect(parseDestination(`https://x.example/${'a'.repeat(2048)}`, LIVE)).toMatchObject({
      ok: false,
      reason: 'invalid_url',
      message: 'The URL is longer than 2,048 characters.',
    });
  });

  test('a port above 65535 is said to be out of range, as port 0 is, not called a URL that is not absolute', () => {
    for (const url of [
      'https://example.com:65536/',
      'https://example.com:65536',
      'https://example.com:99999/hook?x=1',
      'https://example.com:1000000/',
      'https://example.com:0065536/',
      'https://user:pw@example.com:70000/',
      'https://[2001:db8::1]:65536/',
    ]) {
      expect({ url, check: parseDestination(url, LIVE) }).toEqual({
        url,
        check: { ok: false, reason: 'invalid_url', message: 'The port of the URL must be from 1 to 65535.' },
      });
    }
    expect(parseDestination('https://example.com:65535/', LIVE)).toMatchObject({ ok: true });
    // Not a port at all: still not an absolute URL.
    expect(parseDestination('https://example.com:80a/', LIVE)).toMatchObject({
      message: 'The URL is not an absolute URL.',
    });
    expect(parseDestination('https://exa mple.com:65536/', LIVE)).toMatchObject({
      message: 'The URL is not an absolute URL.',
    });
  });

  test('localhost and the names under it are refused by name, trailing dot or not', () => {
    for (const url of [
      'https://localhost/',
      'https://localhost./',
      'https://LOCALHOST/',
      'https://hooks.localhost/',
      'https://hooks.localhost./',
    ]) {
      expect(parseDestination(url, LIVE)).toMatchObject({
        ok: false,
        reason: 'address',
        message: 'Webhooks are not delivered to localhost.',
      });
    }
    expect(parseDestination('https://localhost.shop.example/', LIVE)).toMatchObject({ ok: true });
  });

  test('the local stack may deliver to loopback, over http too, and to nothing else private', () => {
    expect(parseDestination('http://127.0.0.1:4040/hook', LOCAL)).toMatchObject({ ok: true });
    expect(parseDestination('http://[::1]:4040/hook', LOCAL)).toMatchObject({ ok: true });
    expect(parseDestination('http://localhost:4040/hook', LOCAL)).toMatchObject({ ok: true });
    expect(parseDestination('https://10.0.0.1/', LOCAL)).toMatchObject({ ok: false, reason: 'address' });
    expect(parseDestination('http://hooks.shop.example/', LOCAL)).toMatchObject({
      ok: false,
      reason: 'scheme',
    });
    // Over http, a public address is refused like a public name: http is for loopback only.
    for (const url of ['http://8.8.8.8/h', 'http://[2001:4860:4860::8888]/h']) {
      expect([url, parseDestination(url, LOCAL)]).toEqual([
        url,
        expect.objectContaining({ ok: false, reason: 'scheme' }),
      ]);
    }
    expect(parseDestination('https://8.8.8.8/h', LOCAL)).toMatchObject({ ok: true });
  });

  test('at delivery, a name resolving to a private address is refused before any connection (DNS rebinding)', async () => {
    const resolve = stubResolver({
      'rebind.shop.example': ['10.0.0.1'],
      'mixed.shop.example': ['8.8.8.8', '169.254.169.254'],
      'public.shop.example': ['8.8.8.8'],
    });
    const lookup = guardedLookup(resolve, LIVE);
    const outcome = (host: string) =>
      new Promise<{ error: unknown; address: unknown }>((done) =>
        lookup(host, { all: true }, (error, address) => done({ error, address })),
      );
    expect((await outcome('rebind.shop.example')).error).toBeInstanceOf(DestinationRefusedError);
    expect((await outcome('mixed.shop.example')).error).toBeInstanceOf(DestinationRefusedError);
    expect(await outcome('public.shop.example')).toEqual({
      error: null,
      address: [{ address: '8.8.8.8', family: 4 }],
    });
    expect(resolve.asked).toEqual(['rebind.shop.example', 'mixed.shop.example', 'public.shop.example']);

    // Through node:http with the guarded lookup: the request fails in the lookup, and its socket
    // never connects (no 'connect', no remote address), although the name resolves to 10.0.0.1.
    // Should the guard ever let the address through, this wrapper sends the socket to loopback
    // instead (and records it): the test fails, and still never leaves this machine.
    const events: string[] = [];
    const loopbackOnly = ((
      host: string,
      options: { all?: boolean },
      callback: (...args: unknown[]) => void,
    ) =>
      lookup(host, options, (error, address, family) => {
        if (error) return callback(error, address, family);
        events.push(`resolved ${JSON.stringify(address)}`);
        return options?.all
          ? callback(null, [{ address: '127.0.0.1', family: 4 }])
          : callback(null, '127.0.0.1', 4);
      })) as never;
    const error = await new Promise<NodeJS.ErrnoException>((done) => {
      const req = request({
        host: 'rebind.shop.example',
        port: 9,
        path: '/',
        lookup: loopbackOnly,
        agent: false,
      });
      req.on('socket', (socket) => {
        socket.on('connect', () => events.push('connect'));
        socket.on('connectionAttempt', () => events.push('connectionAttempt'));
      });
      req.on('error', done);
      req.end();
    });
    expect(error.code).toBe('EWEBHOOKDESTINATION');
    expect(events).toEqual([]);
  });
});
