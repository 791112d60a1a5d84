import type { EmailChecker } from '../email/check.js';
import { isTestPartition } from '../test-mode/mode.js';
import { emailChecker } from './email.js';
import { asyncPart, part, type Services } from './services.js';
import type { Caller } from './test-locator.js';

// The email checker per key mode (docs/test-mode.md): a test key's caller gets the checker of
// test-mode/email-answers.ts (fixed lists and mail servers, never a DNS query), loaded on the first
// test call only (a split chunk of the bundle).

export const testEmail = /* @__PURE__ */ part(() => import('../test-mode/email-answers.js'));

const testEmailChecker = /* @__PURE__ */ asyncPart(
  async (s): Promise<EmailChecker> => (await testEmail(s)).createTestEmailChecker(),
);

export function emailCheckerFor(s: Services, caller: Caller): Promise<EmailChecker> {
  return isTestPartition(caller.accountId) ? testEmailChecker(s) : emailChecker(s);
}
