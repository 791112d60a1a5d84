import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { traceClient } from './tracing.js';

// One client per container, created on first use. One module per SDK client, so a function loads
// only the clients it uses at cold start. Endpoints come from the SDK's standard
// AWS_ENDPOINT_URL[_SERVICE] variables, which the local server sets for its emulators.
let ddb: DynamoDBDocumentClient | undefined;

export function dynamo(): DynamoDBDocumentClient {
  // The document client shares the base client's middleware stack, which carries the tracing.
  ddb ??= DynamoDBDocumentClient.from(traceClient(new DynamoDBClient({})), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return ddb;
}

/** Forgets the client (the local stack calls it when it points the SDK at new emulator endpoints). */
export function resetDynamoClient(): void {
  ddb = undefined;
}
