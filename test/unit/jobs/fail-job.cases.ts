import { describe, expect, test } from '@jest/globals';
import type { JobRecord } from '../../../functions/lib/jobs/job.js';
import { sweepJobs } from '../../../functions/lib/jobs/job-sweep.js';
import { failJob } from '../../../functions/lib/jobs/process-chunk.js';
import { MemoryJobs, MemoryLedger } from './support/memory-jobs.js';

// The DLQ's settlement of a job (a failed job returns the credits of the addresses never processed:
// docs/api.md: Limits, billing and usage notices), over in-memory stand-ins with the conditions of the
// DynamoDB ones: the counter is credited first, in a write that leaves the job's refund marker, and
// only then is the refund no longer due, so a failure or a crash between the two is finished later
// (by the next delivery or the sweep) and never credits twice.

const NOW = new Date('2026-11-22T10:00:00Z');
const LATER = new Date('2026-11-22T10:10:00Z');

function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: 'job-1',
    accountId: 'acct_1',
    status: 'processing',
    filename: null,
    total: 9,
    credits: 9,
    processed: 3,
    chunkCount: 3,
    chunkDistinct: [3, 3, 3],
    doneChunks: [0],
    counts: {},
    createdAt: NOW.toISOString(),
    completedAt: null,
    expiresAt: '2026-11-29T10:00:00.000Z',
    billedMonth: '2026-11',
    resultsBytes: null,
    ...overrides,
  };
}

function setUp(job: JobRecord | null = record()) {
  const jobs = new MemoryJobs();
  const ledger = new MemoryLedger();
  if (job) jobs.records.set(job.id, job);
  return { jobs, ledger, credited: () => 0 - ledger.charged('acct_1', '2026-11') };
}

describe('fail-job', () => {
  describe('failJob', () => {
    test('fails the job and refunds the distinct addresses of the chunks never processed', async () => {
      const { jobs, ledger, credited } = setUp();
      expect(await failJob(jobs, ledger, 'job-1', NOW)).toBe(6);
      expect(jobs.records.get('job-1')).toMatchObject({ status: 'failed' });
      expect(jobs.records.get('job-1')?.refundDue).toBeUndefined();
      expect(credited()).toBe(6);
      expect(jobs.entries.size).toBe(0);
    });

    test('a refund that fails stays due and is made by the next delivery, once', async () => {
      const { jobs, ledger, credited } = setUp();
      ledger.failing.add('refundOnce');
      await expect(failJob(jobs, ledger, 'job-1', NOW)).rejects.toThrow('refundOnce failed');
      expect(jobs.records.get('job-1')?.refundDue).toBe(true);
      ledger.failing.clear();
      expect(await failJob(jobs, ledger, 'job-1', NOW)).toBe(6);
      expect(await failJob(jobs, ledger, 'job-1', NOW)).toBe(0);
      expect(credited()).toBe(6);
    });

    test('a crash between crediting the counter and clearing the refund is finished by the sweep without crediting twice', async () => {
      const { jobs, ledger, credited } = setUp();
      // The process dies right after the counter write: the refund is still due on the job, and
      // locally the DLQ message is gone with the process (its emulator keeps messages in memory).
      jobs.failing.add('settleRefund');
      await expect(failJob(jobs, ledger, 'job-1', NOW)).rejects.toThrow();
      jobs.failing.clear();
      expect(credited()).toBe(6);
      expect(jobs.records.get('job-1')?.refundDue).toBe(true);
      const report = await sweepJobs({ store: jobs, ledger, graceMs: 120_000 }, LATER);
      expect(report.refunded).toBe(0);
      expect(jobs.records.get('job-1')?.refundDue).toBeUndefined();
      expect(credited()).toBe(6);
      expect(jobs.entries.size).toBe(0);
    });

    test('a crash before the counter is credited is refunded by the sweep, once', async () => {
      const { jobs, ledger, credited } = setUp();
      ledger.failing.add('refundOnce');
      await expect(failJob(jobs, ledger, 'job-1', NOW)).rejects.toThrow();
      ledger.failing.clear();
      // Within the grace period the sweep leaves it (the delivery may still be running).
      expect((await sweepJobs({ store: jobs, ledger, graceMs: 120_000 }, NOW)).refunded).toBe(0);
      expect((await sweepJobs({ store: jobs, ledger, graceMs: 120_000 }, LATER)).refunded).toBe(6);
      expect((await sweepJobs({ store: jobs, ledger, graceMs: 120_000 }, LATER)).refunded).toBe(0);
      expect(credited()).toBe(6);
    });

    test('two dead-lettered chunks of one job settled at once refund once', async () => {
      const { jobs, ledger, credited } = setUp();
      const settled = await Promise.all([
        failJob(jobs, ledger, 'job-1', NOW),
        failJob(jobs, ledger, 'job-1', NOW),
      ]);
      expect(settled.sort()).toEqual([0, 6]);
      expect(credited()).toBe(6);
    });

    test('every chunk counted, only the assembly failed: the job is finished, not failed, and nothing is refunded', async () => {
      const { jobs, ledger, credited } = setUp(record({ doneChunks: [0, 1, 2], processed: 9 }));
      expect(await failJob(jobs, ledger, 'job-1', NOW)).toBe(0);
      expect(jobs.finalized).toBe(1);
      expect(jobs.records.get('job-1')?.status).toBe('completed');
      expect(credited()).toBe(0);
    });

    test('a finished, failed or unknown job is left as it is', async () => {
      for (const job of [record({ status: 'completed' }), record({ status: 'failed' }), undefined]) {
        const { jobs, ledger, credited } = setUp(job ?? null);
        expect(await failJob(jobs, ledger, 'job-1', NOW)).toBe(0);
        expect(jobs.records.get('job-1')?.status).toBe(job?.status);
        expect(credited()).toBe(0);
        expect(jobs.entries.size).toBe(0);
      }
    });
  });
});
