import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { landingKey } from '../lib/aws/job-keys.js';
import { jobCreation, jobStore } from '../lib/aws/job-services.js';
import { JobStorageError } from '../lib/aws/job-store.js';
import { accountRules } from '../lib/aws/services.js';
import { destinationPolicy } from '../lib/aws/webhook-store-services.js';
import { looksGzipped } from '../lib/gzip.js';
import { defineHandler, type Reservation } from '../lib/http/define-handler.js';
import { DEPENDENCY_RETRY_AFTER_SECONDS, HttpError, ValidationError } from '../lib/http/errors.js';
import type { HttpRequest } from '../lib/http/request.js';
import { validateHeaders, validateQuery } from '../lib/http/validate.js';
import { bodyFingerprint } from '../lib/jobs/idempotency.js';
import { type JobRecord, toJob } from '../lib/jobs/job.js';
import {
  completeJob,
  type JobUpload,
  type PendingJob,
  releaseJob,
  reserveJob,
} from '../lib/jobs/job-creation.js';
import { CSV_LIMIT_BYTES, csvEmails } from '../lib/jobs/job-input.js';
import { logger } from '../lib/observability.js';
import type { Services } from '../lib/runtime/services.js';
import { newSecret } from '../lib/webhooks/endpoints.js';
import { checkedUrl } from '../lib/webhooks/manage.js';
import { routeByName } from '../routes.js';
import { JobsCreateHeaders, JobsCreateQuery } from './contract.js';
import { readJobSource, sentGzipped } from './job-request.js';

/** The list behind an uploadId: the CSV the caller posted to its upload URL (gzip or plain). */
async function landedEmails(services: Services, accountId: string, uploadId: string): Promise<string[]> {
  let landed: Awaited<ReturnType<ReturnType<typeof jobStore>['landing']>>;
  try {
    landed = await jobStore(services).landing(landingKey(accountId, uploadId), CSV_LIMIT_BYTES);
  } catch (err) {
    // Before admission: nothing has been charged.
    if (err instanceof JobStorageError) throw storageUnavailable(err);
    throw err;
  }
  if (landed === 'absent') {
    throw new ValidationError(
      'invalid_body',
      'No upload with this uploadId: post the CSV to its uploadUrl first.',
    );
  }
  // landing() deleted it: an upload over the limit is never kept.
  if (landed === 'too_large') throw new HttpError('body_too_large', 'The uploaded CSV is larger than 10 MB.');
  return csvEmails(landed, looksGzipped(landed));
}

/** 503 job_storage_unavailable, with the Retry-After of any dependency that did not answer in time. */
function storageUnavailable(err: Error): HttpError {
  logger.error('job storage failed', { error: err });
  return new HttpError(
    'job_storage_unavailable',
    'The job could not be stored; nothing is charged for it. Retry.',
    { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
  );
}

/**
 * The request body as decoded (a gzip body decompressed: the same list sent compressed or not is
 * the same body). Validation already bounded it to the 10 MB limit.
 */
async function decodedBody(req: HttpRequest, body: Buffer): Promise<Buffer> {
  if (!sentGzipped(req, body)) return body;
  return promisify(gunzip)(body, { maxOutputLength: CSV_LIMIT_BYTES + 1 });
}

/** A storage step of the creation: a JobStorageError is 503 job_storage_unavailable. */
async function stored<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof JobStorageError) throw storageUnavailable(err);
    throw err;
  }
}

// POST /v1/email/jobs: the whole list is validated in input(); reserve() writes the job's pending
// record (and claims its Idempotency-Key: a repeat answers with the job already made); admission
// then charges one credit per distinct address, marking the charge with the job's hold (a list
// over the monthly cap is refused whole); run() stores upload and chunks, confirms the job, queues
// it and answers 202. Any failure after reserve() abandons the job and returns its charge
// (jobs/job-creation.ts); a process that dies is settled the same way by the sweep.
export const handler = defineHandler({
  route: routeByName('jobs-create'),
  input: async (req, principal, services) => {
    // The headers and query first: they are cheap, the body may be 10 MB.
    const { 'Idempotency-Key': idempotencyKey } = validateHeaders(
      JobsCreateHeaders,
      req,
      'invalid_idempotency_key',
    );
    const { filename, webhookUrl } = validateQuery(JobsCreateQuery, req);
    // Refused before anything is read or charged: 400 invalid_webhook_url.
    const webhook =
      webhookUrl === undefined ? undefined : checkedUrl(webhookUrl, destinationPolicy(services));
    const source = await readJobSource(req, filename ?? null);
    if (source.kind === 'emails') return { ...source, idempotencyKey, webhook };
    // The landed object stays where it is and becomes the job's upload: no second copy.
    const emails = await landedEmails(services, principal.accountId, source.uploadId);
    return {
      ...source,
      idempotencyKey,
      webhook,
      emails,
      upload: { key: landingKey(principal.accountId, source.uploadId) },
    };
  },
  reserve: async (
    source,
    { principal, req, now, units, month, services },
  ): Promise<Reservation<PendingJob>> => {
    const key = source.idempotencyKey;
    const upload: JobUpload =
      'upload' in source ? source.upload : { body: source.body, contentType: source.contentType };
    // The request's identity: the decoded body (or the landed upload it names), its type and filename,
    // and the webhookUrl when there is one (the same key with another of any is 409 idempotency_key_reused).
    // The webhookSecret is not part of it: it is made here, never sent.
    const receiver = source.webhook === undefined ? [] : ['webhookUrl', source.webhook];
    const fingerprint = async () =>
      bodyFingerprint(
        'key' in upload
          ? ['upload', upload.key, source.filename, ...receiver]
          : [
              ...receiver,
              upload.contentType,
              source.filename,
              await decodedBody(
                req,
                typeof upload.body === 'string' ? Buffer.from(upload.body) : upload.body,
              ),
            ],
      );
    const idempotency = key ? { key, fingerprint: await fingerprint() } : undefined;
    // The account's email rules now: the job's rows are checked with them, whenever they run.
    const { emailDocument } = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    const reservation = await stored(() =>
      reserveJob(jobCreation(services), {
        accountId: principal.accountId,
        source: principal.channel === 'dashboard' ? 'dashboard' : 'api',
        emails: source.emails,
        filename: source.filename,
        upload,
        credits: units,
        month,
        now,
        ...(idempotency ? { idempotency } : {}),
        ...(emailDocument === undefined ? {} : { emailRules: emailDocument }),
        ...(source.webhook === undefined ? {} : { webhook: { url: source.webhook, secret: newSecret() } }),
      }),
    );
    if ('replay' in reservation) return { replay: { status: 202, json: created(reservation.replay, now) } };
    const job = reservation.pending;
    return { hold: job.record.id, state: job, release: () => releaseJob(jobCreation(services), job) };
  },
  run: async (_source, { now, reserved, services }) => {
    const { record, deferred } = await stored(() => completeJob(jobCreation(services), reserved));
    if (deferred) {
      // The job stands (confirmed and charged); the sweep queues its chunks and drops the hold.
      logger.warn('job confirmed, queueing left to the sweep', {
        jobId: record.id,
        error: deferred as Error,
      });
    }
    return { status: 202, json: created(record, now) };
  },
});

/** The 202 answer: the job, and the secret of its own webhook receiver when it has one. */
function created(record: JobRecord, now: Date) {
  return { ...toJob(record, now), ...(record.webhook ? { webhookSecret: record.webhook.secret } : {}) };
}
