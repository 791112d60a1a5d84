import { DeleteCommand, paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { jobObjectPrefixes } from '../../functions/lib/aws/job-keys.js';
import { fromItem, jobItemKey } from '../../functions/lib/aws/job-records.js';
import type { JobStore } from '../../functions/lib/aws/job-store.js';
import { HIDDEN_STATUSES } from '../../functions/lib/jobs/job.js';
import { chunksToRequeue } from '../../functions/lib/jobs/job-results.js';
import { TRANSITIONS } from '../../functions/lib/jobs/job-transitions.js';

// Local-only upkeep of list jobs: what the emulators do not do (dynalite has no TTL, s3rver no
// lifecycle rule, fauxqs keeps messages in memory only). Scans are fine here: a local table is
// small, and a Lambda never runs this file.

/** Every item of the Jobs table matching a scan filter. */
async function* scan(
  store: JobStore,
  filter: string,
  names: Record<string, string> | undefined,
  values: Record<string, unknown>,
): AsyncGenerator<Record<string, unknown>> {
  const { db, table } = store.records;
  const pages = paginateScan(
    { client: db },
    {
      TableName: table,
      FilterExpression: filter,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  );
  for await (const page of pages) yield* page.Items ?? [];
}

async function deletePrefix(store: JobStore, prefix: string): Promise<void> {
  const keys = await store.objects.keys(prefix);
  for (let i = 0; i < keys.length; i += 1000) await store.objects.deleteKeys(keys.slice(i, i + 1000));
}

/**
 * Local stand-in for the bucket lifecycle and DynamoDB TTL: deletes the objects of jobs past
 * expiresAt and marks them expired, and deletes idempotency keys past theirs. In AWS the
 * lifecycle rule deletes the objects and TTL the keys. Records of creations not settled are the
 * creation sweep's. Returns how many jobs it expired.
 */
export async function sweepExpired(store: JobStore, now: Date): Promise<number> {
  const { db, table } = store.records;
  let swept = 0;
  const skip = ['expired', ...HIDDEN_STATUSES];
  const skipValues = Object.fromEntries(skip.map((s, i) => [`:skip${i}`, s]));
  const items = scan(
    store,
    `(sk = :job AND expiresAt <= :now AND NOT #status IN (${Object.keys(skipValues).join(', ')})) OR (sk = :idem AND expiresAt <= :now)`,
    { '#status': 'status' },
    { ':job': 'JOB', ':idem': 'IDEM', ':now': now.toISOString(), ...skipValues },
  );
  for await (const item of items) {
    if (item.sk === 'IDEM') {
      await db.send(new DeleteCommand({ TableName: table, Key: { pk: item.pk, sk: item.sk } }));
      continue;
    }
    const id = item.id as string;
    const prefixes = jobObjectPrefixes(id);
    if (typeof item.uploadKey === 'string') prefixes.push(item.uploadKey);
    for (const prefix of prefixes) await deletePrefix(store, prefix);
    await db.send(
      new UpdateCommand({
        TableName: table,
        Key: jobItemKey(id),
        UpdateExpression: 'SET #status = :expired',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':expired': 'expired' },
      }),
    );
    swept++;
  }
  return swept;
}

/**
 * Queues again every chunk not yet counted of every queued or processing job. The local stack
 * calls it on start because its SQS emulator keeps messages in memory only; duplicates are
 * harmless (chunks are counted once). Returns how many messages it sent.
 */
export async function requeueUnfinished(store: JobStore): Promise<number> {
  let queued = 0;
  const running = TRANSITIONS.countChunk.from;
  const values = Object.fromEntries(running.map((s, i) => [`:run${i}`, s]));
  const items = scan(
    store,
    `sk = :job AND #status IN (${Object.keys(values).join(', ')})`,
    { '#status': 'status' },
    { ':job': 'JOB', ...values },
  );
  for await (const item of items) {
    const record = fromItem(item);
    const toSend = chunksToRequeue(record);
    await store.queue.sendChunks(record.id, toSend);
    queued += toSend.length;
  }
  return queued;
}
