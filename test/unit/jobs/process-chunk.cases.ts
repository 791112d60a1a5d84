import { describe, expect, test } from '@jest/globals';
import { type EmailChecker, invalidSyntaxResult } from '../../../functions/lib/email/check.js';
import type { JobRecord } from '../../../functions/lib/jobs/job.js';
import { processChunk } from '../../../functions/lib/jobs/process-chunk.js';
import { MemoryJobs } from './support/memory-jobs.js';

// One delivery of a chunk (process-chunk.ts), over the in-memory job store: the job completes when
// its last chunk is counted, and its completedAt is when that happened, not when the delivery began.

const START = new Date('2026-11-22T10:00:00Z');
const AFTER_CHECKS = new Date('2026-11-22T10:00:24Z');

function record(): JobRecord {
  return {
    id: 'job-1',
    accountId: 'acct_1',
    status: 'processing',
    filename: null,
    total: 4,
    credits: 4,
    processed: 2,
    chunkCount: 2,
    chunkDistinct: [2, 2],
    doneChunks: [0],
    counts: {},
    createdAt: START.toISOString(),
    completedAt: null,
    expiresAt: '2026-11-29T10:00:00.000Z',
    billedMonth: '2026-11',
    resultsBytes: null,
  };
}

describe('process-chunk', () => {
  test('the last chunk completes the job, at the time its checks ended', async () => {
    const jobs = new MemoryJobs();
    jobs.records.set('job-1', record());
    jobs.chunks.set('job-1/1', [
      { pos: 2, email: 'c@x.example' },
      { pos: 3, email: 'd@x.example' },
    ]);
    let now = START;
    // Checks that take 24 s (slow DNS): the clock moves while they run.
    const checker = {
      checkMany: async (emails: readonly string[]) => {
        now = AFTER_CHECKS;
        return emails.map(invalidSyntaxResult);
      },
    } as unknown as EmailChecker;
    const outcome = await processChunk(
      jobs,
      async () => checker,
      { jobId: 'job-1', chunk: 1 },
      () => now,
    );
    expect(outcome).toBe('completed');
    expect(jobs.records.get('job-1')).toMatchObject({
      status: 'completed',
      completedAt: AFTER_CHECKS.toISOString(),
      processed: 4,
    });
    // A second delivery of the same chunk counts nothing and completes nothing again.
    expect(
      await processChunk(
        jobs,
        async () => checker,
        { jobId: 'job-1', chunk: 1 },
        () => now,
      ),
    ).toBe('ignored');
    expect(jobs.records.get('job-1')).toMatchObject({
      status: 'completed',
      completedAt: AFTER_CHECKS.toISOString(),
      processed: 4,
      doneChunks: [0, 1],
    });
  });
});
