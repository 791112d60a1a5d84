import { isVisible, type JobRecord } from './job.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A job of this account, or undefined (the route answers 404 job_not_found): unknown ids, other
 * accounts' jobs, and records of creations not confirmed or abandoned alike.
 */
export async function ownJob(
  id: string | undefined,
  accountId: string,
  get: (id: string) => Promise<JobRecord | undefined>,
): Promise<JobRecord | undefined> {
  const record = id && UUID.test(id) ? await get(id.toLowerCase()) : undefined;
  if (!record || record.accountId !== accountId || !isVisible(record.status)) return undefined;
  return record;
}
