import type { RouteContract } from '../lib/http/contract.js';
import { apiCode } from '../lib/http/validate.js';
import { FILENAME_MAX, FILENAME_MESSAGES, hasControlCharacter } from '../lib/jobs/filename.js';
import { IDEMPOTENCY_KEY_MAX } from '../lib/jobs/idempotency.js';
import { JobSchema } from '../lib/jobs/job.js';
import { JobJsonBody, JobUploadBody } from '../lib/jobs/job-input.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

/** C0 controls and DEL: what HTTP would not carry intact, and what a log line should not hold. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

export { FILENAME_MAX };

/** The longest webhookUrl a job takes. */
const WEBHOOK_URL_MAX = 2048;

export const JobsCreateWebhook = z
  .optional(
    z.string().check(
      // Every bad webhookUrl is invalid_webhook_url, an empty or too long one too (docs/api.md).
      z.refine((url) => url.length > 0 && url.length <= WEBHOOK_URL_MAX, {
        ...apiCode('invalid_webhook_url'),
        error: `webhookUrl must be an https URL of at most ${WEBHOOK_URL_MAX} characters.`,
      }),
      z.meta({ minLength: 1, maxLength: WEBHOOK_URL_MAX }),
    ),
  )
  .check(
    z.describe(
      "A receiver of this job's own: its job.completed or job.failed event is POSTed there, signed with the " +
        'webhookSecret of the answer (the API guide: Webhooks). https on a public host only.',
    ),
  );

export const JobsCreateQuery = z.object({
  // invalid_body, like a too-long filename or one with a control character in a JSON body or a
  // form's file part (job-request.ts, lib/jobs/filename.ts).
  filename: z
    .optional(
      z.string().check(
        z.refine((name) => name.length <= FILENAME_MAX, {
          ...apiCode('invalid_body'),
          error: FILENAME_MESSAGES.tooLong,
        }),
        z.refine((name) => !hasControlCharacter(name), {
          ...apiCode('invalid_body'),
          error: FILENAME_MESSAGES.control,
        }),
        z.meta({ maxLength: FILENAME_MAX }),
      ),
    )
    .check(z.describe('Names a text/csv list (shown back as filename); a JSON body names itself.')),
  webhookUrl: JobsCreateWebhook,
});

export const JobsCreateHeaders = z.object({
  'Idempotency-Key': z
    .optional(
      z.string().check(
        z.refine((key) => key.length > 0 && key.length <= IDEMPOTENCY_KEY_MAX && !hasControl(key), {
          ...apiCode('invalid_idempotency_key'),
          error: `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters without control characters.`,
        }),
        z.meta({ minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX }),
      ),
    )
    .check(
      z.describe(
        'Makes retries safe: the same key and request within 24 h answer with the same job, charged once; ' +
          'another request (the decoded body, its content type, filename or webhookUrl) is 409 ' +
          'idempotency_key_reused. Per account; no control characters.',
      ),
    ),
});

export const contract: RouteContract = {
  body: z
    .union([JobJsonBody, JobUploadBody])
    .check(
      z.describe(
        'JSON {emails, filename?}; or {uploadId, filename?} after posting the CSV to an upload URL; or a text/csv ' +
          'body (?filename= names it); or a multipart/form-data form with one file part (curl -F file=@list.csv; the ' +
          "file's name names it). Content-Encoding: gzip is accepted for JSON and CSV. At most 10 MB (after " +
          'decompression) and 100,000 rows; a longer list is refused at its 100,001st row without reading the rest.',
      ),
    ),
  bodyMediaTypes: ['text/csv', 'multipart/form-data'],
  query: JobsCreateQuery,
  headers: JobsCreateHeaders,
  response: z
    .extend(JobSchema, {
      webhookSecret: z
        .optional(z.string())
        .check(
          z.describe(
            "With webhookUrl only: the secret that signs the job's event (Netintel-Signature), shown in this answer only.",
          ),
        ),
    })
    .check(z.describe('The job, status queued. Credits: one per distinct address, charged now.')),
  responseStatus: 202,
  errors: [
    // A bad ?webhookUrl= (the query is checked before the body).
    'invalid_webhook_url',
    'invalid_body',
    'empty_job',
    'job_too_large',
    'invalid_idempotency_key',
    'idempotency_key_reused',
    'idempotency_key_in_progress',
    'job_storage_unavailable',
  ],
  examples,
};
