import type { ChunkPlan, ChunkRow } from '../../../../functions/lib/jobs/chunking.js';
import type { JobRecord } from '../../../../functions/lib/jobs/job.js';
import type { Charge, JobLedger } from '../../../../functions/lib/jobs/job-charges.js';
import type { IdempotencyRecord, JobUpload } from '../../../../functions/lib/jobs/job-creation.js';
import type { SweepStore } from '../../../../functions/lib/jobs/job-sweep.js';
import type { JobRepository } from '../../../../functions/lib/jobs/process-chunk.js';
import type { SweepEntry } from '../../../../functions/lib/jobs/sweep-entry.js';

// In-memory stand-ins for the job store and the month counter, with the conditions of the
// DynamoDB ones (aws/job-store.ts, aws/usage-counter.ts): each method is one item write, and each
// awaits once so that calls run concurrently interleave as they would against DynamoDB.

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const copy = <T>(value: T): T => structuredClone(value);

export class MemoryJobs implements SweepStore, JobRepository {
  records = new Map<string, JobRecord>();
  objects = new Set<string>();
  entries = new Map<string, SweepEntry>();
  keys = new Map<string, IdempotencyRecord>();
  queued: { jobId: string; chunk: number }[] = [];
  /** Operations that throw, to play storage failures. */
  failing = new Set<string>();

  private async step(op: string): Promise<void> {
    await tick();
    if (this.failing.has(op)) throw new Error(`${op} failed`);
  }

  async get(id: string) {
    await this.step('get');
    const record = this.records.get(id);
    return record && copy(record);
  }

  async putSweepEntry(entry: SweepEntry) {
    await this.step('putSweepEntry');
    this.entries.set(`${entry.kind}#${entry.jobId}`, { ...entry });
  }

  async deleteSweepEntry(entry: Pick<SweepEntry, 'kind' | 'jobId'>) {
    await this.step('deleteSweepEntry');
    this.entries.delete(`${entry.kind}#${entry.jobId}`);
  }

  async sweepEntries(dueBy: Date) {
    await this.step('sweepEntries');
    return [...this.entries.values()].filter((e) => e.dueAt <= dueBy.toISOString()).map((e) => ({ ...e }));
  }

  async putPending(record: JobRecord, upload: JobUpload) {
    await this.step('putPending');
    if (this.records.has(record.id)) throw new Error('exists');
    this.records.set(record.id, { ...copy(record), uploadKey: this.uploadKey(record.id, upload) });
  }

  /** The email rules stored with each job (storeParts), by job id. */
  readonly rules = new Map<string, string>();

  async storeParts(record: JobRecord, upload: JobUpload, chunks: readonly ChunkPlan[], emailRules?: string) {
    await this.step('storeParts');
    if (!('key' in upload)) this.objects.add(this.uploadKey(record.id, upload));
    for (const c of chunks) this.objects.add(`chunks/${record.id}/${c.index}.json`);
    if (emailRules !== undefined) {
      this.objects.add(`chunks/${record.id}/email-rules.json`);
      this.rules.set(record.id, emailRules);
    }
  }

  async transition(id: string, to: 'queued' | 'abandoned') {
    await this.step('transition');
    const record = this.records.get(id);
    if (record?.status !== 'pending') return false;
    record.status = to;
    return true;
  }

  async queueChunks(jobId: string, chunks: readonly number[]) {
    await this.step('queueChunks');
    for (const chunk of chunks) this.queued.push({ jobId, chunk });
  }

  async deleteAbandoned(id: string) {
    await this.step('deleteAbandoned');
    if (this.records.get(id)?.status === 'abandoned') this.records.delete(id);
  }

  async claimKey(record: IdempotencyRecord, now: Date) {
    await this.step('claimKey');
    const k = `${record.accountId}#${record.key}`;
    const held = this.keys.get(k);
    if (held && held.expiresAt > now.toISOString()) return { ...held };
    this.keys.set(k, { ...record });
    return 'claimed' as const;
  }

  async moveKey(record: IdempotencyRecord, fromJobId: string) {
    await this.step('moveKey');
    const held = this.keys.get(`${record.accountId}#${record.key}`);
    if (held?.jobId !== fromJobId || held.fingerprint !== record.fingerprint) return false;
    held.jobId = record.jobId;
    return true;
  }

  async partsStored(record: JobRecord) {
    await this.step('partsStored');
    const upload =
      record.uploadKey === undefined ||
      this.objects.has(record.uploadKey) ||
      record.uploadKey.startsWith('uploads/landing/');
    return (
      upload &&
      Array.from({ length: record.chunkCount }, (_, n) => `chunks/${record.id}/${n}.json`).every((k) =>
        this.objects.has(k),
      )
    );
  }

  async deleteParts(record: JobRecord) {
    await this.step('deleteParts');
    for (const k of [...this.objects])
      if (k.startsWith(`chunks/${record.id}/`) || k.startsWith(`uploads/${record.id}.`))
        this.objects.delete(k);
  }

  async settleRefund(id: string) {
    await this.step('settleRefund');
    const record = this.records.get(id);
    if (record) delete record.refundDue;
  }

  async markAnnounced(id: string) {
    await this.step('markAnnounced');
    const record = this.records.get(id);
    if (record) record.announced = true;
  }

  /** The rows of each chunk, by `${jobId}/${chunk}`. */
  chunks = new Map<string, ChunkRow[]>();
  async chunkRows(id: string, chunk: number): Promise<ChunkRow[]> {
    const rows = this.chunks.get(`${id}/${chunk}`);
    if (!rows) throw new Error(`no chunk ${chunk} of ${id}`);
    return copy(rows);
  }

  async jobRules(id: string): Promise<string> {
    const rules = this.rules.get(id);
    if (rules === undefined) throw new Error(`no rules stored with ${id}`);
    return rules;
  }

  /** Counts a chunk once (the conditional write of aws/job-store.ts): undefined when it was counted. */
  async completeChunk(id: string, chunk: number, lines: [number, string][]): Promise<JobRecord | undefined> {
    await this.step('completeChunk');
    const record = this.records.get(id);
    if (!record || record.doneChunks.includes(chunk)) return undefined;
    record.doneChunks.push(chunk);
    record.processed += lines.length;
    record.status = 'processing';
    return copy(record);
  }

  finalized = 0;
  async finalize(r: JobRecord, now: Date) {
    await this.step('finalize');
    this.finalized++;
    const record = this.records.get(r.id);
    if (record?.status === 'processing') {
      record.status = 'completed';
      record.completedAt = now.toISOString();
    }
  }

  async markFailed(id: string) {
    await this.step('markFailed');
    const record = this.records.get(id);
    if (!record || (record.status !== 'queued' && record.status !== 'processing')) return false;
    record.status = 'failed';
    record.refundDue = true;
    return true;
  }

  /** Objects of a job still in the bucket. */
  objectsOf(id: string): string[] {
    return [...this.objects].filter((k) => k.includes(id));
  }

  private uploadKey(id: string, upload: JobUpload): string {
    return 'key' in upload
      ? upload.key
      : `uploads/${id}.${upload.contentType === 'text/csv' ? 'csv' : 'json'}`;
  }
}

/** The month counters, with the markers of aws/usage-counter.ts. */
export class MemoryLedger implements JobLedger {
  months = new Map<string, { count: number; markers: Map<string, number> }>();
  failing = new Set<string>();

  private month(c: Pick<Charge, 'accountId' | 'month'>) {
    const k = `${c.accountId}#${c.month}`;
    const m = this.months.get(k) ?? { count: 0, markers: new Map<string, number>() };
    this.months.set(k, m);
    return m;
  }

  private async step(op: string): Promise<void> {
    await tick();
    if (this.failing.has(op)) throw new Error(`${op} failed`);
  }

  /** What admission does for a reserved job: counts the units and sets the hold, in one write. */
  async charge(c: Charge) {
    await this.step('charge');
    const m = this.month(c);
    m.count += c.units;
    m.markers.set(`hold_${c.jobId}`, c.units);
  }

  charged(accountId: string, month: string): number {
    return this.month({ accountId, month }).count;
  }

  markers(accountId: string, month: string): string[] {
    return [...this.month({ accountId, month }).markers.keys()];
  }

  async isHeld(c: Charge) {
    await this.step('isHeld');
    return this.month(c).markers.has(`hold_${c.jobId}`);
  }

  async release(c: Charge) {
    await this.step('release');
    this.month(c).markers.delete(`hold_${c.jobId}`);
  }

  async refundHeld(c: Charge) {
    await this.step('refundHeld');
    const m = this.month(c);
    if (!m.markers.delete(`hold_${c.jobId}`)) return false;
    m.count -= c.units;
    return true;
  }

  async refundOnce(c: Charge) {
    await this.step('refundOnce');
    const m = this.month(c);
    if (m.markers.has(`refunded_${c.jobId}`)) return false;
    m.markers.set(`refunded_${c.jobId}`, c.units);
    m.count -= c.units;
    return true;
  }
}
