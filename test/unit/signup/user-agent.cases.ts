import { describe, expect, test } from '@jest/globals';
import { isAutomatedUserAgent } from '../../../functions/lib/signup/user-agent.js';

describe('user-agent', () => {
  describe('automated_user_agent', () => {
    test.each([
      'curl/8.4.0',
      'Wget/1.21.4',
      'python-requests/2.31.0',
      'Python-urllib/3.11',
      'python-httpx/0.27.0',
      'aiohttp/3.9.1',
      'Go-http-client/1.1',
      'Go-http-client/2.0',
      'libwww-perl/6.72',
      'okhttp/4.12.0',
      'axios/1.6.7',
      'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)',
      'node-fetch',
      'undici',
      'node',
      'Java/17.0.2',
      'Java-http-client/21.0.1',
      'Apache-HttpClient/4.5.14 (Java/17.0.9)',
      'PostmanRuntime/7.36.1',
      'insomnia/2023.5.8',
      'HTTPie/3.2.2',
      'Dart/3.2 (dart:io)',
      'Scrapy/2.11.0 (+https://scrapy.org)',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.71 Safari/537.36',
      'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    ])('a script, headless browser or crawler is automated: %s', (ua) => {
      expect(isAutomatedUserAgent(ua)).toBe(true);
    });

    test.each([
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91',
    ])('a browser is not automated: %s', (ua) => {
      expect(isAutomatedUserAgent(ua)).toBe(false);
    });

    test('an empty userAgent counts as automated (browsers always send one); a blank one too', () => {
      expect(isAutomatedUserAgent('')).toBe(true);
      expect(isAutomatedUserAgent('   ')).toBe(true);
    });

    test('an absent userAgent is no signal', () => {
      expect(isAutomatedUserAgent(undefined)).toBe(false);
      expect(isAutomatedUserAgent(null)).toBe(false);
    });
  });
});
