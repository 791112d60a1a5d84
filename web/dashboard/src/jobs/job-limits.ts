// The list job limits, as the API holds them (functions/lib/jobs/job.ts JOB_MAX_ROWS and
// job-input.ts CSV_LIMIT_BYTES). Those modules load zod and Node's zlib, so the numbers are
// repeated here; test/unit/dashboard/list-preview.test.ts fails if they ever differ.

export const JOB_MAX_ROWS = 100_000;
/** CSV bytes, after decompression; also the largest file the upload URL takes. */
export const CSV_LIMIT_BYTES = 10 * 1024 * 1024;
/** The longest filename a job keeps. */
export const FILENAME_MAX = 255;
