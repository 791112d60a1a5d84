import { randomUUID } from 'node:crypto';
import { landingKey } from '../lib/aws/job-keys.js';
import { jobObjects } from '../lib/aws/job-object-services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { CSV_LIMIT_BYTES } from '../lib/jobs/job-input.js';
import { routeByName } from '../routes.js';

const TICKET_SECONDS = 15 * 60;

// POST /v1/email/jobs/uploads (extension, not billed): a presigned POST for a CSV of up to 10 MB.
// A synchronous Lambda invocation carries at most 6 MB, so large lists go to S3 directly. A POST
// policy, unlike a presigned PUT, carries a content-length-range that S3 enforces: a larger file
// is refused by S3 and never stored. The landing key is scoped to the account, so an uploadId is
// useless to anyone else.
export const handler = defineHandler({
  route: routeByName('jobs-upload'),
  input: () => ({}),
  run: async (_input, { principal, now, services }) => {
    const uploadId = randomUUID();
    const { url, fields } = await jobObjects(services).landingUpload(
      landingKey(principal.accountId, uploadId),
      CSV_LIMIT_BYTES,
      TICKET_SECONDS,
    );
    return {
      status: 201,
      json: {
        uploadId,
        uploadUrl: url,
        method: 'POST',
        fields,
        maxBytes: CSV_LIMIT_BYTES,
        expiresAt: new Date(now.getTime() + TICKET_SECONDS * 1000).toISOString(),
      },
    };
  },
});
