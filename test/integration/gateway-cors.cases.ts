import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// API Gateway's own answers in a browser, as the local gateway emulates them from the same
// gateway-response definitions the stack installs (functions/lib/gateway/gateway-responses.ts).

let stack: TestStack;
describe('gateway-cors', () => {
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  describe('gateway responses and CORS', () => {
    test("a browser can read the gateway's 401: the request Origin is echoed, with Vary: Origin", async () => {
      const res = await stack.call('POST', '/v1/email/validate', {
        headers: { 'X-Api-Key': `ni_pub_${'A'.repeat(32)}`, Origin: 'https://shop.customer.example' },
        body: { email: 'a@b.example' },
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'invalid_api_key' });
      expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.customer.example');
      expect(res.headers.get('vary')).toBe('Origin');
    });

    test("the gateway's 403 origin_not_allowed stays opaque: no Access-Control-Allow-Origin", async () => {
      const res = await stack.call('GET', '/v1/geo', { headers: stack.browser('https://evil.example') });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'origin_not_allowed' });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('vary')).toBe('Origin');
    });

    test("the gateway's 403 wrong_key_type names its code (the authorizer's errorCode)", async () => {
      const res = await stack.call('POST', '/v1/lookup', {
        headers: stack.browser(),
        body: { ips: ['8.8.8.8'] },
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'wrong_key_type' });
    });
  });
});
