import { describe, expect, test } from '@jest/globals';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { handler as deadLetters } from '../../../functions/job-dlq/handler.js';
import { handler as processor } from '../../../functions/job-processor/handler.js';
import { DATA_LAYER_DIR } from '../../../layers/build/data-layer.js';
import { lambdaContext } from '../../../scripts/local/lambda-context.js';
import { testServices } from '../../support/services.js';

// The local pollers run several invocations of a queue handler at once in one process (Lambda runs
// one at a time a container). Each invocation must answer for its own records: a Powertools
// BatchProcessor shared at module level mixed the batches' outcomes.

function record(messageId: string): SQSRecord {
  return {
    messageId,
    receiptHandle: `handle-${messageId}`,
    body: 'not a job message', // refused before any AWS call: the record fails
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:jobs',
    awsRegion: 'local',
  };
}

const failures = (response: SQSBatchResponse | undefined) =>
  (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier).sort();

describe('queue handlers invoked at once', () => {
  // The job processor loads its email checker before the records: from the data layer npm test builds.
  const services = testServices({ NETINTEL_DATA_PATH: DATA_LAYER_DIR });

  test.each([
    ['job-processor', processor],
    ['job-dlq', deadLetters],
  ] as const)('%s: each invocation reports its own failed records', async (name, entry) => {
    const handler = entry.build(services);
    const batches: SQSEvent[] = [
      { Records: [record('a1')] },
      { Records: [record('b1'), record('b2')] },
      { Records: [record('c1'), record('c2'), record('c3')] },
    ];
    const responses = await Promise.all(
      batches.map((event) => handler(event, lambdaContext(`netintel-${name}`, 1024, 60_000))),
    );
    expect(responses.map(failures)).toEqual([['a1'], ['b1', 'b2'], ['c1', 'c2', 'c3']]);
  });
});
