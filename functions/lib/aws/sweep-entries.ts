import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, PutCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { SweepEntry } from '../jobs/sweep-entry.js';

// The job sweep's entries in the Jobs table, SWEEP / <kind>#<jobId> (jobs/sweep-entry.ts).

const SWEEP_PK = 'SWEEP';
const sweepItemKey = (entry: Pick<SweepEntry, 'kind' | 'jobId'>) => ({
  pk: SWEEP_PK,
  sk: `${entry.kind}#${entry.jobId}`,
});

export class SweepEntryRecords {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(entry: SweepEntry): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...sweepItemKey(entry), kind: entry.kind, jobId: entry.jobId, dueAt: entry.dueAt },
      }),
    );
  }

  async delete(entry: Pick<SweepEntry, 'kind' | 'jobId'>): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: sweepItemKey(entry) }));
  }

  /**
   * The due entries: one partition holding only what is being created or refunded right now (two
   * writes per creation), read consistently, so an entry written is an entry the sweep sees.
   */
  async due(dueBy: Date): Promise<SweepEntry[]> {
    const entries: SweepEntry[] = [];
    const pages = paginateQuery(
      { client: this.db },
      {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'dueAt <= :dueBy',
        ExpressionAttributeValues: { ':pk': SWEEP_PK, ':dueBy': dueBy.toISOString() },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        entries.push({
          kind: item.kind as SweepEntry['kind'],
          jobId: item.jobId as string,
          dueAt: item.dueAt as string,
        });
      }
    }
    return entries;
  }
}
