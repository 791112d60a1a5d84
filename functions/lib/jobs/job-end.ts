import type { JobRecord } from './job.js';
import type { JobRepository } from './process-chunk.js';

// Telling the account's systems that a list job ended (job.completed, job.failed: docs/webhooks.md).
// The job is marked announced only after its listener returned, so a worker that dies in between
// leaves the job unannounced and the next delivery of any of its chunks (SQS delivers again what a
// dead worker did not finish) announces it. Announcing twice is harmless: the event's id is the
// job's, and each receiver gets each event once per announcement at most (webhooks/announce.ts).

/** What to do when a job ends: announce its event (the runtime wires the webhooks in). */
export type JobEndListener = (job: JobRecord) => Promise<void>;

/** Announces the job's end if it has ended and nobody did yet; true when this call announced it. */
export async function announceJobEnd(
  repo: Pick<JobRepository, 'get' | 'markAnnounced'>,
  listener: JobEndListener,
  jobId: string,
): Promise<boolean> {
  const job = await repo.get(jobId);
  if (!job || job.announced || (job.status !== 'completed' && job.status !== 'failed')) return false;
  await listener(job);
  await repo.markAnnounced(jobId);
  return true;
}
