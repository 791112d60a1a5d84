import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryMessage, DeliveryQueue } from '../webhooks/ports.js';

/** The webhook deliveries queue: one message per attempt to make (webhooks/delivery.ts). */
export class WebhookQueue implements DeliveryQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(messages: readonly DeliveryMessage[]): Promise<void> {
    for (let i = 0; i < messages.length; i += 10) {
      const batch = messages.slice(i, i + 10);
      const res = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((message, n) => ({ Id: String(n), MessageBody: JSON.stringify(message) })),
        }),
      );
      if (res.Failed && res.Failed.length > 0)
        throw new Error(`${res.Failed.length} webhook deliveries were not queued`);
    }
  }
}
