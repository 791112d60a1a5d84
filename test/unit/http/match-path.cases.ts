import { describe, expect, test } from '@jest/globals';
import { matchIn, matchPath, requestTarget } from '../../../scripts/local/match-path.js';

// The local gateway's routing (scripts/local/match-path.ts), as API Gateway matches the resources
// the stack deploys from the same table.

const names = (match: { routes: { name: string }[] } | undefined) => match?.routes.map((r) => r.name).sort();

describe('the local gateway matches a path to its resource like API Gateway', () => {
  test('a path parameter takes one segment, as it was sent', () => {
    const match = matchPath('/v1/lookup/2001:db8::1');

    expect(names(match)).toEqual(['lookup-ip']);
    expect(match?.pathParameters).toEqual({ ip: '2001:db8::1' });
    expect(matchPath('/v1/lookup/1.1.1.1/extra')).toBeUndefined();
  });

  test("a resource's routes come together, one per method", () => {
    expect(names(matchPath('/v1/email/jobs'))).toEqual(['jobs-create', 'jobs-list']);
    expect(names(matchPath('/v1/dashboard/session'))).toEqual(['dashboard-session', 'dashboard-sign-out']);
    expect(matchPath('/v1/dashboard/keys/key_1')).toEqual({
      routes: [
        expect.objectContaining({ name: 'dashboard-keys-update', method: 'PUT' }),
        expect.objectContaining({ name: 'dashboard-keys-revoke', method: 'DELETE' }),
      ],
      pathParameters: { keyId: 'key_1' },
    });
  });

  test('the most specific resource wins: fewest path parameters', () => {
    expect(names(matchPath('/v1/email/jobs/uploads'))).toEqual(['jobs-upload']);
    expect(matchPath('/v1/email/jobs/job_1')?.pathParameters).toEqual({ id: 'job_1' });
    const table = [{ path: '/a/{x}/{y}' }, { path: '/a/{x}/c' }, { path: '/a/b/c' }];

    expect(matchIn(table, '/a/b/c')).toEqual({ routes: [{ path: '/a/b/c' }], pathParameters: {} });
    expect(matchIn(table, '/a/z/c')).toEqual({ routes: [{ path: '/a/{x}/c' }], pathParameters: { x: 'z' } });
    expect(matchIn(table, '/a/z/d')?.pathParameters).toEqual({ x: 'z', y: 'd' });
  });

  test('the path is routed as sent: no `\\` read as `/`, no dot segment resolved', () => {
    for (const target of [
      '/v1\\lookup\\8.8.8.8',
      '/v1/lookup/../usage',
      '/v1/lookup/%2e%2e/usage',
      '/v1/lookup/./8.8.8.8',
      '//v1/geo',
      '/v1/geo/',
    ]) {
      const { path } = requestTarget(target);
      expect([target, path]).toEqual([target, target]);
      expect([target, matchPath(path)]).toEqual([target, undefined]);
    }
    // One segment, whatever it spells: the route refuses it as it refuses any other value.
    expect(matchPath(requestTarget('/v1/lookup/%2e%2e').path)?.pathParameters).toEqual({ ip: '%2e%2e' });
  });

  test('the query is what follows the first ?; an absolute-form target is routed on its path', () => {
    expect(requestTarget('/v1/geo?fields=country?x&key=a')).toEqual({
      path: '/v1/geo',
      query: 'fields=country?x&key=a',
    });
    expect(requestTarget('/v1/lookup/2001%3Adb8%3A%3A1')).toEqual({
      path: '/v1/lookup/2001%3Adb8%3A%3A1',
      query: '',
    });
    expect(requestTarget('http://127.0.0.1:8787/v1/geo?x=1')).toEqual({ path: '/v1/geo', query: 'x=1' });
    expect(requestTarget('HTTPS://example.com')).toEqual({ path: '/', query: '' });
    expect(requestTarget('*').path).toBe('*');
  });

  test('a path of no route matches nothing (the gateway answers it, no function runs)', () => {
    expect(matchPath('/v1/nowhere')).toBeUndefined();
    expect(matchPath('/v1/dashboard/nowhere')).toBeUndefined();
    // Every route of the one table, the API description's and the dashboard's included.
    expect(names(matchPath('/v1/openapi.json'))).toEqual(['openapi']);
  });
});
