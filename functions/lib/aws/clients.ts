import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// One client of each kind per container, created on first use (not at import: handlers that never
// touch S3 should not pay for it at cold start). Endpoints come from the SDK's standard
// AWS_ENDPOINT_URL[_SERVICE] variables, which the local server sets for its emulators.

let ddb: DynamoDBDocumentClient | undefined;
let s3: S3Client | undefined;
let sqs: SQSClient | undefined;

export function dynamo(): DynamoDBDocumentClient {
  ddb ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return ddb;
}

export function s3Client(): S3Client {
  const local = Boolean(process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL);
  s3 ??= new S3Client({
    forcePathStyle: local,
    // The local S3 emulator would store the SDK's aws-chunked framing of streamed uploads.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  return s3;
}

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient({});
  return sqs;
}
