import { isbot } from 'isbot';

// `automated_user_agent`: the supplied userAgent looks like a bot or script. isbot knows
// crawlers, monitors and most HTTP libraries; the pattern below makes sure the script clients and
// automated browsers a signup form should never see are caught whatever isbot's list holds, and
// adds the few it does not know (Puppeteer/Playwright/Selenium markers, Dart, httpx).
const SCRIPT_CLIENT = new RegExp(
  [
    'curl/',
    'wget/',
    'python-requests',
    'python-urllib',
    'python-httpx',
    'httpx/',
    'aiohttp',
    'go-http-client',
    'libwww-perl',
    'lwp::',
    'okhttp',
    'axios/',
    'node-fetch',
    'undici',
    '^node$',
    'got \\(',
    'java/',
    'java-http-client',
    'apache-httpclient',
    'jakarta commons-httpclient',
    'postmanruntime',
    'insomnia/',
    'httpie',
    'dart/',
    'reqwest',
    'guzzlehttp',
    'restsharp',
    'ruby',
    'faraday',
    'scrapy',
    'headless',
    'phantomjs',
    'puppeteer',
    'playwright',
    'selenium',
    'webdriver',
    'slimerjs',
  ].join('|'),
  'i',
);

/**
 * Whether a supplied userAgent looks automated. An absent userAgent (undefined or null) is no signal;
 * an empty or blank one is: every browser sends one, and only scripts send an empty header.
 */
export function isAutomatedUserAgent(userAgent: string | null | undefined): boolean {
  if (userAgent === undefined || userAgent === null) return false;
  const ua = userAgent.trim();
  if (ua === '') return true;
  return SCRIPT_CLIENT.test(ua) || isbot(ua);
}
