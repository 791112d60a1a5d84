import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const UploadTicketSchema = z.object({
  uploadId: z
    .string()
    .check(z.describe('Pass as {"uploadId"} to POST /v1/email/jobs once the CSV is uploaded.')),
  uploadUrl: z
    .string()
    .check(
      z.describe(
        'Presigned POST: send a multipart/form-data request here with every entry of `fields`, then the CSV ' +
          '(optionally gzip-compressed) as the last field, named `file`.',
      ),
    ),
  method: z.literal('POST'),
  fields: z
    .record(z.string(), z.string())
    .check(z.describe('Form fields to send as they are, before the file (key, policy, signature, ...).')),
  maxBytes: z
    .number()
    .check(
      z.int(),
      z.describe('Largest file accepted (10 MB). Storage refuses a larger one (400 EntityTooLarge).'),
    ),
  expiresAt: z.string().check(z.describe('The upload is refused after this time (15 minutes).')),
});

export const contract: RouteContract = {
  response: UploadTicketSchema.check(
    z.describe(
      'Extension for CSVs too large for one request: post the file to uploadUrl as a form with `fields`, ' +
        'then create the job with {uploadId}.',
    ),
  ),
  responseStatus: 201,
  examples,
};
