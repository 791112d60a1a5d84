import { GMAIL_TYPO, GMAIL_WITH_TAG, MAILINATOR } from '../email-validate/examples.js';
import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with email-batch (see RouteExample): test/integration/docs.cases.ts replays each one.
// Each result is what email-validate answers for its address.

/** jane.doe@gmail.com, the same Gmail mailbox without the tag (the signup check's example uses it too). */
export const JANE_DOE_GMAIL = {
  ...GMAIL_WITH_TAG,
  email: 'jane.doe@gmail.com',
  normalizedEmail: 'jane.doe@gmail.com',
};

export const examples: Record<string, RouteExample> = {
  mixed: {
    summary: 'A good address, a typo and a disposable one',
    body: {
      emails: ['jane.doe@gmail.com', 'jane@gmial.com', 'someone@mailinator.com'],
    },
    response: {
      results: [JANE_DOE_GMAIL, GMAIL_TYPO, MAILINATOR],
    },
  },
};
