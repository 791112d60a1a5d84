import { describe, expect, test } from '@jest/globals';
import type { JobRecord } from '../../../functions/lib/jobs/job.js';
import { failJob, type JobRepository } from '../../../functions/lib/jobs/process-chunk.js';

// The DLQ's settlement of a job (spec: unprocessed credits are returned), over an in-memory repository
// with the same conditions as the DynamoDB one: refunds are made exactly once even when the refund
// write fails or two dead-lettered chunks of one job are settled at the same time.

const NOW = new Date('2026-11-22T10:00:00Z');

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

class MemoryRepo implements JobRepository {
  refundDue = false;
  finalized = 0;
  constructor(public job: JobRecord | undefined) {}
  async get() {
    return this.job && { ...this.job };
  }
  async chunkRows(): Promise<never> {
    throw new Error('not used');
  }
  async completeChunk(): Promise<never> {
    throw new Error('not used');
  }
  async finalize(r: JobRecord) {
    this.finalized++;
    if (this.job && r.status === 'processing') this.job = { ...this.job, status: 'completed' };
  }
  async markFailed() {
    if (!this.job || (this.job.status !== 'queued' && this.job.status !== 'processing')) return false;
    this.job = { ...this.job, status: 'failed' };
    this.refundDue = true;
    return true;
  }
  async claimRefund() {
    if (!this.refundDue) return undefined;
    this.refundDue = false;
    return this.job && { ...this.job };
  }
  async releaseRefund() {
    this.refundDue = true;
  }
}

describe('failJob', () => {
  test('fails the job and refunds the distinct addresses of the chunks never processed', async () => {
    const repo = new MemoryRepo(record());
    const refunds: number[] = [];
    expect(await failJob(repo, 'job-1', async (_, units) => void refunds.push(units), NOW)).toBe(6);
    expect(repo.job?.status).toBe('failed');
    expect(refunds).toEqual([6]);
  });

  test('a refund that fails is put back and made by the next delivery, once', async () => {
    const repo = new MemoryRepo(record());
    const refunds: number[] = [];
    let attempts = 0;
    const flaky = async (_: JobRecord, units: number) => {
      if (attempts++ === 0) throw new Error('ProvisionedThroughputExceededException');
      refunds.push(units);
    };
    await expect(failJob(repo, 'job-1', flaky, NOW)).rejects.toThrow('ProvisionedThroughput');
    expect(await failJob(repo, 'job-1', flaky, NOW)).toBe(6);
    expect(await failJob(repo, 'job-1', flaky, NOW)).toBe(0);
    expect(refunds).toEqual([6]);
  });

  test('two dead-lettered chunks of one job settled at once refund once', async () => {
    const repo = new MemoryRepo(record());
    const refunds: number[] = [];
    const refund = async (_: JobRecord, units: number) => void refunds.push(units);
    const settled = await Promise.all([
      failJob(repo, 'job-1', refund, NOW),
      failJob(repo, 'job-1', refund, NOW),
    ]);
    expect(settled.sort()).toEqual([0, 6]);
    expect(refunds).toEqual([6]);
  });

  test('every chunk counted, only the assembly failed: the job is finished, not failed, and nothing is refunded', async () => {
    const repo = new MemoryRepo(record({ doneChunks: [0, 1, 2], processed: 9 }));
    const refunds: number[] = [];
    expect(await failJob(repo, 'job-1', async (_, u) => void refunds.push(u), NOW)).toBe(0);
    expect(repo.finalized).toBe(1);
    expect(repo.job?.status).toBe('completed');
    expect(refunds).toEqual([]);
  });

  test('a finished, failed or unknown job is left as it is', async () => {
    for (const job of [record({ status: 'completed' }), record({ status: 'failed' }), undefined]) {
      const repo = new MemoryRepo(job);
      expect(await failJob(repo, 'job-1', async () => undefined, NOW)).toBe(0);
      expect(repo.job?.status).toBe(job?.status);
    }
  });
});
