import { HttpError } from '../http/errors.js';
import type { JobRecord } from './job.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A job of this account, or 404 job_not_found (unknown ids and other accounts' jobs alike). */
export async function ownJob(
  id: string | undefined,
  accountId: string,
  get: (id: string) => Promise<JobRecord | undefined>,
): Promise<JobRecord> {
  const record = id && UUID.test(id) ? await get(id.toLowerCase()) : undefined;
  if (!record || record.accountId !== accountId)
    throw new HttpError('job_not_found', 'No list job with this id for this account.');
  return record;
}
