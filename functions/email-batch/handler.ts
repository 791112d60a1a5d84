import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { ValidationError } from '../lib/http/errors.js';
import { validate } from '../lib/http/validate.js';
import { emailChecker } from '../lib/runtime/email.js';
import { EMAIL_BATCH_MAX, EmailBatchBody } from './contract.js';

// POST /v1/email/batch (secret key): 1-100 addresses, results in input order, billed per address.
export const handler = defineHandler({
  route: 'email-batch',
  input: (req) => {
    const body = readJsonBody(req);
    const emails = (body as { emails?: unknown } | null)?.emails;
    if (Array.isArray(emails) && emails.length === 0)
      throw new ValidationError('empty_batch', 'emails is empty.');
    if (Array.isArray(emails) && emails.length > EMAIL_BATCH_MAX) {
      throw new ValidationError(
        'batch_too_large',
        `At most ${EMAIL_BATCH_MAX} addresses per batch; got ${emails.length}.`,
      );
    }
    return validate(EmailBatchBody, body);
  },
  run: async ({ emails }) => ({ json: { results: await (await emailChecker()).checkMany(emails) } }),
});
