import { describe, expect, test } from '@jest/globals';
import { isVisible, type JobRecord } from '../../../functions/lib/jobs/job.js';
import {
  type CrashPoint,
  type CreationDeps,
  completeJob,
  type JobRequest,
  releaseJob,
  reserveJob,
} from '../../../functions/lib/jobs/job-creation.js';
import {
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  JobAbandonedError,
} from '../../../functions/lib/jobs/job-errors.js';
import { sweepJobs } from '../../../functions/lib/jobs/job-sweep.js';
import { MemoryJobs, MemoryLedger } from './support/memory-jobs.js';

// Creating a list job and settling what a crash left (jobs/job-creation.ts, jobs/job-sweep.ts),
// over in-memory stand-ins with the conditions of the DynamoDB store and counter. The rule every
// test ends on: the month charged equals the credits of the jobs that exist.

const NOW = new Date('2026-11-22T10:00:00Z');
const MONTH = '2026-11';
const GRACE_MS = 120_000;
const AFTER_GRACE = new Date(NOW.getTime() + GRACE_MS);
const EMAILS = ['a@x.example', 'b@x.example', 'a@x.example', 'c@y.example', 'd@y.example'];
const CREDITS = 4;

/** The process dying at a checkpoint: nothing after it runs, no error handler either. */
class Crash extends Error {}

function setUp(crashAt?: CrashPoint) {
  const jobs = new MemoryJobs();
  const ledger = new MemoryLedger();
  let ids = 0;
  const deps: CreationDeps = {
    store: jobs,
    ledger,
    newId: () => `job-${++ids}`,
    checkpoint: (point) => {
      if (point === crashAt) throw new Crash(point);
    },
    chunkRows: 3,
    graceMs: GRACE_MS,
    sweepEveryMs: 300_000,
  };
  const sweep = (at: Date) => sweepJobs({ store: jobs, ledger, graceMs: GRACE_MS }, at);
  const visible = (accountId = 'acct_1') =>
    [...jobs.records.values()].filter((r) => r.accountId === accountId && isVisible(r.status));
  /** The rule: what the month holds is what the account's existing jobs cost. */
  const balanced = (accountId = 'acct_1') =>
    ledger.charged(accountId, MONTH) === visible(accountId).reduce((sum, r) => sum + r.credits, 0);
  return { jobs, ledger, deps, sweep, visible, balanced };
}

/**
 * POST /v1/email/jobs as define-handler and jobs-create run it: reserve, admission's charge with
 * the hold, complete; on an error, release. A crash stops everything where it happens.
 */
async function post(
  deps: CreationDeps,
  ledger: MemoryLedger,
  overrides: Partial<JobRequest> = {},
  admission: 'charge' | 'refuse' = 'charge',
): Promise<{ job: JobRecord; replayed: boolean }> {
  const request: JobRequest = {
    accountId: 'acct_1',
    source: 'api',
    emails: EMAILS,
    filename: null,
    upload: { body: JSON.stringify(EMAILS), contentType: 'application/json' },
    credits: CREDITS,
    month: MONTH,
    now: NOW,
    ...overrides,
  };
  const reservation = await reserveJob(deps, request);
  if ('replay' in reservation) return { job: reservation.replay, replayed: true };
  const { pending } = reservation;
  try {
    if (admission === 'refuse') throw new Error('over the cap');
    await ledger.charge({
      accountId: request.accountId,
      month: request.month,
      jobId: pending.record.id,
      units: request.credits,
      meter: 'email',
    });
    return { job: (await completeJob(deps, pending)).record, replayed: false };
  } catch (err) {
    if (!(err instanceof Crash)) await releaseJob(deps, pending);
    throw err;
  }
}

describe('job-creation', () => {
  describe('creating a list job', () => {
    test('a created job is queued with every chunk queued, charged once, and leaves nothing to sweep', async () => {
      const { jobs, ledger, deps, balanced } = setUp();
      const { job } = await post(deps, ledger);
      expect(job).toMatchObject({ status: 'queued', credits: CREDITS, total: 5, chunkCount: 2 });
      expect(jobs.records.get(job.id)?.status).toBe('queued');
      expect(jobs.queued).toEqual([
        { jobId: job.id, chunk: 0 },
        { jobId: job.id, chunk: 1 },
      ]);
      expect(ledger.charged('acct_1', MONTH)).toBe(CREDITS);
      expect(ledger.markers('acct_1', MONTH)).toEqual([]);
      expect(jobs.entries.size).toBe(0);
      expect(balanced()).toBe(true);
    });

    test('a list refused at admission is charged nothing and leaves no job', async () => {
      const { jobs, ledger, deps, visible, balanced, sweep } = setUp();
      await expect(post(deps, ledger, {}, 'refuse')).rejects.toThrow('over the cap');
      expect(visible()).toEqual([]);
      await sweep(AFTER_GRACE);
      expect(jobs.records.size).toBe(0);
      expect(balanced()).toBe(true);
    });

    test('a storage failure after the charge returns the charge; the sweep deletes what was stored', async () => {
      const { jobs, ledger, deps, balanced, sweep } = setUp();
      jobs.failing.add('transition');
      await expect(post(deps, ledger)).rejects.toThrow('transition failed');
      jobs.failing.clear();
      // The release could not abandon the record (the store failed): the charge stays held until the sweep.
      expect(ledger.charged('acct_1', MONTH)).toBe(CREDITS);
      const report = await sweep(AFTER_GRACE);
      expect(report).toMatchObject({ abandoned: 0, confirmed: 1 });
      expect(balanced()).toBe(true);
    });

    test('a failure storing the chunks abandons the job: nothing is charged, the sweep deletes the upload', async () => {
      const { jobs, ledger, deps, balanced, sweep } = setUp();
      jobs.failing.add('storeParts');
      await expect(post(deps, ledger)).rejects.toThrow('storeParts failed');
      jobs.failing.clear();
      expect(ledger.charged('acct_1', MONTH)).toBe(0);
      expect(jobs.records.get('job-1')?.status).toBe('abandoned');
      jobs.objects.add('uploads/job-1.json');
      await sweep(AFTER_GRACE);
      expect(jobs.records.size).toBe(0);
      expect(jobs.objectsOf('job-1')).toEqual([]);
      expect(balanced()).toBe(true);
    });
  });

  describe('after a crash during creation, the sweep', () => {
    test('leaves a pending creation alone within the grace period', async () => {
      const { jobs, ledger, deps, sweep } = setUp('after_charge');
      await expect(post(deps, ledger)).rejects.toThrow(Crash);
      const report = await sweep(new Date(AFTER_GRACE.getTime() - 1));
      expect(report).toMatchObject({ confirmed: 0, abandoned: 0, refunded: 0 });
      expect(jobs.records.get('job-1')?.status).toBe('pending');
      expect(ledger.charged('acct_1', MONTH)).toBe(CREDITS);
    });

    test('after_record (never charged): abandons and deletes the record; nothing is refunded', async () => {
      const { jobs, ledger, deps, sweep, balanced } = setUp('after_record');
      await expect(post(deps, ledger)).rejects.toThrow(Crash);
      const report = await sweep(AFTER_GRACE);
      expect(report).toMatchObject({ abandoned: 1, refunded: 0 });
      expect(jobs.records.size).toBe(0);
      expect(jobs.entries.size).toBe(0);
      expect(balanced()).toBe(true);
    });

    test('after_charge (pending with missing parts): refunds the charge and deletes the record and its files', async () => {
      const { jobs, ledger, deps, sweep, balanced } = setUp('after_charge');
      await expect(post(deps, ledger)).rejects.toThrow(Crash);
      expect(balanced()).toBe(false); // the charge without a job the sweep exists for
      jobs.objects.add('chunks/job-1/0.json'); // the process died half-way through the chunk files
      const report = await sweep(AFTER_GRACE);
      expect(report).toMatchObject({ abandoned: 1, refunded: CREDITS, confirmed: 0 });
      expect(jobs.records.size).toBe(0);
      expect(jobs.objectsOf('job-1')).toEqual([]);
      expect(ledger.markers('acct_1', MONTH)).toEqual([]);
      expect(balanced()).toBe(true);
    });

    test('after_chunks (pending, charged, everything stored): completes the job as the request would have', async () => {
      const { jobs, ledger, deps, sweep, balanced } = setUp('after_chunks');
      await expect(post(deps, ledger)).rejects.toThrow(Crash);
      const report = await sweep(AFTER_GRACE);
      expect(report).toMatchObject({ confirmed: 1, abandoned: 0, refunded: 0 });
      expect(jobs.records.get('job-1')?.status).toBe('queued');
      expect(jobs.queued.map((m) => m.chunk).sort()).toEqual([0, 1]);
      expect(ledger.charged('acct_1', MONTH)).toBe(CREDITS);
      expect(ledger.markers('acct_1', MONTH)).toEqual([]);
      expect(balanced()).toBe(true);
    });

    test('after_queued (confirmed, nothing queued yet): queues the chunks and drops the hold; the charge stays', async () => {
      const { jobs, ledger, deps, sweep, balanced } = setUp('after_queued');
      await expect(post(deps, ledger)).rejects.toThrow(Crash);
      expect(jobs.queued).toEqual([]);
      expect(balanced()).toBe(true);
      await sweep(AFTER_GRACE);
      expect(jobs.queued.map((m) => m.chunk).sort()).toEqual([0, 1]);
      expect(ledger.markers('acct_1', MONTH)).toEqual([]);
      expect(jobs.entries.size).toBe(0);
      expect(balanced()).toBe(true);
    });

    test('a charged creation with a chunk file missing is refunded, not completed', async () => {
      const { jobs, ledger, deps, sweep, balanced } = setUp('after_chunks');
      await expect(post(deps, ledger)).rejects.toThrow(Crash);
      jobs.objects.delete('chunks/job-1/1.json');
      expect(await sweep(AFTER_GRACE)).toMatchObject({ abandoned: 1, refunded: CREDITS });
      expect(balanced()).toBe(true);
    });

    test('a sweep run twice refunds once', async () => {
      const { ledger, deps, sweep, balanced } = setUp('after_charge');
      await expect(post(deps, ledger)).rejects.toThrow(Crash);
      expect((await sweep(AFTER_GRACE)).refunded).toBe(CREDITS);
      expect((await sweep(AFTER_GRACE)).refunded).toBe(0);
      expect(ledger.charged('acct_1', MONTH)).toBe(0);
      expect(balanced()).toBe(true);
    });

    test('two sweeps at once refund once, and confirm a complete creation once', async () => {
      for (const [crashAt, refunded] of [
        ['after_charge', CREDITS],
        ['after_chunks', 0],
      ] as const) {
        const { ledger, deps, sweep, balanced, visible } = setUp(crashAt);
        await expect(post(deps, ledger)).rejects.toThrow(Crash);
        const reports = await Promise.all([sweep(AFTER_GRACE), sweep(AFTER_GRACE), sweep(AFTER_GRACE)]);
        expect(reports.reduce((sum, r) => sum + r.refunded, 0)).toBe(refunded);
        expect(reports.flatMap((r) => r.failures)).toEqual([]);
        expect(visible()).toHaveLength(refunded ? 0 : 1);
        expect(balanced()).toBe(true);
      }
    });

    test('a sweep that takes a running request for a dead one (grace too short) still leaves no charge without a job', async () => {
      const { jobs, ledger, deps, sweep, balanced } = setUp();
      const request: JobRequest = {
        accountId: 'acct_1',
        source: 'api',
        emails: EMAILS,
        filename: null,
        upload: { body: JSON.stringify(EMAILS), contentType: 'application/json' },
        credits: CREDITS,
        month: MONTH,
        now: NOW,
      };
      const reservation = await reserveJob(deps, request);
      if (!('pending' in reservation)) throw new Error('expected a pending job');
      // Between the reservation and the charge, a sweep with no grace abandons the record.
      await sweepJobs({ store: jobs, ledger, graceMs: 0 }, NOW);
      await ledger.charge({
        accountId: 'acct_1',
        month: MONTH,
        jobId: 'job-1',
        units: CREDITS,
        meter: 'email',
      });
      await expect(completeJob(deps, reservation.pending)).rejects.toThrow(JobAbandonedError);
      await releaseJob(deps, reservation.pending);
      await sweep(AFTER_GRACE);
      expect(ledger.charged('acct_1', MONTH)).toBe(0);
      expect(jobs.objectsOf('job-1')).toEqual([]);
      expect(balanced()).toBe(true);
    });
  });

  describe('Idempotency-Key', () => {
    const keyed = (key: string, fingerprint = 'body-1') => ({ idempotency: { key, fingerprint } });

    test('the same key and body return the same job, charged once', async () => {
      const { ledger, deps, visible } = setUp();
      const first = await post(deps, ledger, keyed('k1'));
      const again = await post(deps, ledger, keyed('k1'));
      expect(again).toMatchObject({ replayed: true, job: { id: first.job.id, status: 'queued' } });
      expect(visible()).toHaveLength(1);
      expect(ledger.charged('acct_1', MONTH)).toBe(CREDITS);
    });

    test('the same key with another body is refused as reused, and charges nothing', async () => {
      const { ledger, deps, balanced } = setUp();
      await post(deps, ledger, keyed('k1', 'body-1'));
      await expect(post(deps, ledger, keyed('k1', 'body-2'))).rejects.toThrow(IdempotencyKeyReusedError);
      expect(balanced()).toBe(true);
    });

    test("a key is the account's own: another account's same key makes its own job", async () => {
      const { ledger, deps, visible } = setUp();
      const mine = await post(deps, ledger, keyed('k1'));
      const theirs = await post(deps, ledger, { accountId: 'acct_2', ...keyed('k1') });
      expect(theirs.replayed).toBe(false);
      expect(theirs.job.id).not.toBe(mine.job.id);
      expect(visible('acct_2')).toHaveLength(1);
    });

    test('a retry while the first request is still pending is refused as in progress, with when to retry', async () => {
      const { ledger, deps } = setUp('after_charge');
      await expect(post(deps, ledger, keyed('k1'))).rejects.toThrow(Crash);
      const retry = post({ ...deps, checkpoint: () => undefined }, ledger, keyed('k1'));
      await expect(retry).rejects.toThrow(IdempotencyKeyInProgressError);
      const err = (await retry.catch((e: unknown) => e)) as IdempotencyKeyInProgressError;
      expect(err.retryAfterSeconds).toBeGreaterThan(0);
    });

    test('a retry after a crash is charged once: the job the sweep completed, or a new one for a refunded attempt', async () => {
      for (const crashAt of ['after_record', 'after_charge', 'after_chunks', 'after_queued'] as const) {
        const { ledger, deps, sweep, balanced, visible } = setUp(crashAt);
        await expect(post(deps, ledger, keyed('k1'))).rejects.toThrow(Crash);
        await sweep(AFTER_GRACE);
        const retry = await post({ ...deps, checkpoint: () => undefined }, ledger, {
          ...keyed('k1'),
          now: AFTER_GRACE,
        });
        expect(retry.replayed).toBe(crashAt === 'after_chunks' || crashAt === 'after_queued');
        expect(visible()).toHaveLength(1);
        expect(ledger.charged('acct_1', MONTH)).toBe(CREDITS);
        expect(balanced()).toBe(true);
      }
    });

    test('a retry after a refused attempt takes the key over', async () => {
      const { ledger, deps, visible } = setUp();
      await expect(post(deps, ledger, keyed('k1'), 'refuse')).rejects.toThrow('over the cap');
      const retry = await post(deps, ledger, keyed('k1'));
      expect(retry.replayed).toBe(false);
      expect(visible()).toHaveLength(1);
      expect(ledger.charged('acct_1', MONTH)).toBe(CREDITS);
    });

    test('a key is kept 24 hours: after that the same key makes a new job', async () => {
      const { ledger, deps, visible } = setUp();
      await post(deps, ledger, keyed('k1'));
      const day = await post(deps, ledger, { ...keyed('k1'), now: new Date(NOW.getTime() + 86_400_000 - 1) });
      expect(day.replayed).toBe(true);
      const later = await post(deps, ledger, { ...keyed('k1'), now: new Date(NOW.getTime() + 86_400_000) });
      expect(later.replayed).toBe(false);
      expect(visible()).toHaveLength(2);
    });
  });
});
