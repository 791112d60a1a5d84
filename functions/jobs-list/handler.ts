import { jobStore } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { toJob } from '../lib/jobs/job.js';
import { decodeCursor, encodeCursor, parseLimit } from '../lib/jobs/list-cursor.js';

// GET /v1/email/jobs: the account's jobs, newest first, as job objects (like GET /v1/email/jobs/{id});
// not billed, counted against the minute like polling. Only the caller's account is ever queried.
export const handler = defineHandler({
  route: 'jobs-list',
  input: (req) => ({
    limit: parseLimit(req.query.limit),
    after: req.query.cursor === undefined ? undefined : decodeCursor(req.query.cursor),
  }),
  run: async ({ limit, after }, { principal, now }) => {
    const page = await jobStore().listByAccount(principal.accountId, limit, after);
    return {
      json: {
        jobs: page.records.map((record) => toJob(record, now)),
        nextCursor: page.next ? encodeCursor(page.next) : null,
      },
    };
  },
});
