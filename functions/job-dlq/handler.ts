import type { SQSEvent } from 'aws-lambda';

// Chunks that exhausted their retries. Implemented by the list-jobs issue (mark the job failed,
// return the credits of the unprocessed part).
export async function handler(_event: SQSEvent): Promise<void> {}
