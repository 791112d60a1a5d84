import { JobStorageError } from '../lib/aws/job-store.js';
import { jobStore } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { HttpError, ValidationError } from '../lib/http/errors.js';
import { toJob } from '../lib/jobs/job.js';
import {
  CSV_LIMIT_BYTES,
  checkRowCount,
  csvEmails,
  gunzipList,
  readJobSource,
} from '../lib/jobs/job-input.js';
import { landingKey } from '../lib/jobs/landing.js';
import { logger } from '../lib/observability.js';

const GZIP_MAGIC = 0x1f8b;

/** The list behind an uploadId: the CSV the caller PUT to its upload URL (gzip or plain). */
async function landedEmails(accountId: string, uploadId: string): Promise<string[]> {
  let landed: Awaited<ReturnType<ReturnType<typeof jobStore>['landing']>>;
  try {
    landed = await jobStore().landing(landingKey(accountId, uploadId), CSV_LIMIT_BYTES);
  } catch (err) {
    // Before admission: nothing has been charged.
    if (err instanceof JobStorageError) throw storageUnavailable(err);
    throw err;
  }
  if (landed === 'absent') {
    throw new ValidationError(
      'invalid_body',
      'No upload with this uploadId: PUT the CSV to its uploadUrl first.',
    );
  }
  if (landed === 'too_large') throw new HttpError('body_too_large', 'The uploaded CSV is larger than 10 MB.');
  const gzipped = landed.length >= 2 && landed.readUInt16BE(0) === GZIP_MAGIC;
  const emails = csvEmails(gzipped ? gunzipList(landed) : landed);
  checkRowCount(emails);
  return emails;
}

function storageUnavailable(err: Error): HttpError {
  logger.error('job storage failed', { error: err });
  return new HttpError('job_storage_unavailable', 'The job could not be stored; nothing was charged. Retry.');
}

// POST /v1/email/jobs: the whole list is validated in input(); admission then charges one credit
// per distinct address (a list over the monthly cap is refused whole before anything is stored);
// run() stores upload, record and chunks and answers 202. A storage failure is 503
// job_storage_unavailable, and the factory's 5xx refund returns the credits: nothing is charged.
export const handler = defineHandler({
  route: 'jobs-create',
  input: async (req, principal) => {
    const source = readJobSource(req);
    if (source.kind === 'emails') return source;
    // The landed object stays where it is and becomes the job's upload: no second copy.
    const emails = await landedEmails(principal.accountId, source.uploadId);
    return { ...source, emails, upload: { key: landingKey(principal.accountId, source.uploadId) } };
  },
  run: async (source, { principal, now, billed }) => {
    try {
      const record = await jobStore().create({
        accountId: principal.accountId,
        emails: source.emails,
        filename: source.filename,
        upload: 'upload' in source ? source.upload : { body: source.body, contentType: source.contentType },
        credits: billed.units,
        billedMonth: billed.month,
        now,
      });
      return { status: 202, json: toJob(record, now) };
    } catch (err) {
      if (err instanceof JobStorageError) throw storageUnavailable(err);
      throw err;
    }
  },
});
