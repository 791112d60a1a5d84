import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { JobMessage } from '../jobs/job-message.js';

/** The job queue: one message per chunk (jobs/job-message.ts). */
export class JobQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  /** One message per chunk, ten per call; throws when SQS refuses any. */
  async sendChunks(jobId: string, chunkIndexes: readonly number[]): Promise<void> {
    for (let i = 0; i < chunkIndexes.length; i += 10) {
      const batch = chunkIndexes.slice(i, i + 10);
      const res = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((chunk) => {
            const message: JobMessage = { jobId, chunk };
            return { Id: String(chunk), MessageBody: JSON.stringify(message) };
          }),
        }),
      );
      if (res.Failed && res.Failed.length > 0)
        throw new Error(`${res.Failed.length} chunk messages were not queued`);
    }
  }
}
