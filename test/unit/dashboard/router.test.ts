import { describe, expect, test } from '@jest/globals';
import { href, PAGES, parseRoute } from '../../../web/dashboard/src/router.js';

// The dashboard's hash routes (web/dashboard/src/router.ts), read without a browser.

describe('parseRoute', () => {
  test('each page, a job and a sign-in link; an unknown page or none is the Overview', () => {
    for (const page of PAGES) expect(parseRoute(href(page))).toEqual({ page });
    expect(parseRoute(href('jobs', 'job 1/2'))).toEqual({ page: 'jobs', jobId: 'job 1/2' });
    expect(parseRoute('#/sign-in/abc%2Bdef')).toEqual({ page: 'sign-in', token: 'abc+def' });
    for (const hash of ['', '#', '#/', '#/nonexistent', '#/sign-in']) {
      expect(parseRoute(hash)).toEqual({ page: 'overview' });
    }
  });

  test('a malformed % escape is an address that cannot be read, not an exception (it left a blank page)', () => {
    expect(parseRoute('#/%')).toEqual({ page: 'invalid', signInLink: false });
    expect(parseRoute('#/jobs/%E0%A4%A')).toEqual({ page: 'invalid', signInLink: false });
    expect(parseRoute('#/keys/%ZZ')).toEqual({ page: 'invalid', signInLink: false });
    expect(parseRoute('#/sign-in/%')).toEqual({ page: 'invalid', signInLink: true });
    expect(parseRoute('#/sign-in/abc%E0%A4')).toEqual({ page: 'invalid', signInLink: true });
  });
});
