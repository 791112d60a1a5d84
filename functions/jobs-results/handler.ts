import { defineHandler } from '../lib/http/define-handler.js';
import { NotImplementedError } from '../lib/http/errors.js';

// Placeholder until its issue lands: the route exists everywhere and answers 501.
export const handler = defineHandler({
  route: 'jobs-results',
  input: () => ({ ips: [] as string[], emails: [] as string[] }),
  run: () => {
    throw new NotImplementedError('GET /v1/email/jobs/{id}/results');
  },
});
