import { jobRecords } from '../lib/aws/job-record-services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validateQuery } from '../lib/http/validate.js';
import { toJob } from '../lib/jobs/job.js';
import { decodeCursor, encodeCursor, LIST_LIMIT_DEFAULT } from '../lib/jobs/list-cursor.js';
import { routeByName } from '../routes.js';
import { JobsListQuery } from './contract.js';

// GET /v1/email/jobs: the account's jobs, newest first, as job objects (like GET /v1/email/jobs/{id});
// not billed, counted against the minute like polling. Only the caller's account is ever queried.
export const handler = defineHandler({
  route: routeByName('jobs-list'),
  input: (req) => {
    const { limit, cursor } = validateQuery(JobsListQuery, req);
    // The contract accepted the cursor as one encodeCursor made.
    return {
      limit: limit ?? LIST_LIMIT_DEFAULT,
      after: cursor === undefined ? undefined : decodeCursor(cursor)!,
    };
  },
  run: async ({ limit, after }, { principal, now, services }) => {
    const page = await jobRecords(services).listByAccount(principal.accountId, limit, after);
    return {
      json: {
        jobs: page.records.map((record) => toJob(record, now)),
        nextCursor: page.next ? encodeCursor(page.next) : null,
      },
    };
  },
});
