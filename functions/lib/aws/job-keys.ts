import { BUCKET } from './resources.js';

// The one place a job's S3 keys are built. Every key starts with a prefix of BUCKET.prefixes,
// which also scopes the functions' IAM grants and the bucket's 7-day lifecycle rule
// (infra/constructs/job-pipeline.ts): a key built anywhere else could drift from them, and drift
// is AccessDenied in AWS and objects the lifecycle rule never deletes.
//   uploads/<id>.<csv|json>                     the upload as received
//   uploads/landing/<account>/<upload>.csv      a CSV posted to a presigned upload (uploadKey)
//   chunks/<id>/<n>.json                        a chunk's rows [{pos, email}]
//   chunks/<id>/results-<n>.json                a chunk's results {lines: [[pos, line]], counts}
//   chunks/<id>/email-rules.json                the account's email rules at the job's creation
//   results/<id>.csv                            the assembled results file

const { uploads, chunks, results } = BUCKET.prefixes;

/** The upload stored with a job (a landed CSV keeps its landing key instead). */
export function uploadKey(jobId: string, contentType: string): string {
  return `${uploads}${jobId}.${contentType === 'text/csv' ? 'csv' : 'json'}`;
}

/** True for the job's own upload; a landed CSV belongs to its upload, which a retry may use again. */
export function isJobUpload(jobId: string, objectKey: string): boolean {
  return objectKey.startsWith(`${uploads}${jobId}.`);
}

/** Where a presigned CSV upload lands (under uploads/, so the 7-day lifecycle rule covers it). */
export function landingKey(accountId: string, uploadId: string): string {
  return `${uploads}landing/${accountId}/${uploadId}.csv`;
}

export function chunkKey(jobId: string, chunk: number): string {
  return `${chunks}${jobId}/${chunk}.json`;
}

/** The account's email rules in force when the job was created (jobs/job-creation.ts). */
export function jobRulesKey(jobId: string): string {
  return `${chunks}${jobId}/email-rules.json`;
}

export function chunkResultsKey(jobId: string, chunk: number): string {
  return `${chunks}${jobId}/results-${chunk}.json`;
}

/** Every chunk file of a job (rows and results). */
export function chunksPrefix(jobId: string): string {
  return `${chunks}${jobId}/`;
}

export function resultsKey(jobId: string): string {
  return `${results}${jobId}.csv`;
}

/** Prefixes holding every object of a job except a landed upload (the local expiry sweep). */
export function jobObjectPrefixes(jobId: string): string[] {
  return [`${uploads}${jobId}`, chunksPrefix(jobId), `${results}${jobId}`];
}
