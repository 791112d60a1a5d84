import { HttpError } from '../http/errors.js';
import { isVisible, type JobRecord } from './job.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A job of this account, or 404 job_not_found (unknown ids, other accounts' jobs, and records of
 * creations not confirmed or abandoned alike).
 */
export async function ownJob(
  id: string | undefined,
  accountId: string,
  get: (id: string) => Promise<JobRecord | undefined>,
): Promise<JobRecord> {
  const record = id && UUID.test(id) ? await get(id.toLowerCase()) : undefined;
  if (!record || record.accountId !== accountId || !isVisible(record.status))
    throw new HttpError('job_not_found', 'No list job with this id for this account.');
  return record;
}
