import { describe, expect, test } from '@jest/globals';
import { localUrl } from '../../../scripts/local/api-gateway.js';

// The URL npm start prints and the tests call, for each HOST (one process or WORKERS above 1).
describe('localUrl', () => {
  test.each([
    [undefined, 'http://127.0.0.1:8787'],
    ['127.0.0.1', 'http://127.0.0.1:8787'],
    ['0.0.0.0', 'http://127.0.0.1:8787'],
    ['::', 'http://127.0.0.1:8787'],
    ['::1', 'http://[::1]:8787'],
    ['localhost', 'http://localhost:8787'],
  ])('HOST %s is reached at %s', (host, url) => {
    expect(localUrl(host, 8787)).toBe(url);
    expect(() => new URL(url)).not.toThrow();
  });
});
