import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';

export const UploadTicketSchema = z.object({
  uploadId: z.string().describe('Pass as {"uploadId"} to POST /v1/email/jobs once the CSV is uploaded.'),
  uploadUrl: z.string().describe('Presigned URL: PUT the CSV body (optionally gzip-compressed) here.'),
  method: z.literal('PUT'),
  maxBytes: z.number().int().describe('Largest CSV accepted (10 MB).'),
  expiresAt: z.string().describe('The URL stops working at this time (15 minutes).'),
});

export const contract: RouteContract = {
  response: UploadTicketSchema.describe(
    'Extension for CSVs too large for one request: PUT the file to uploadUrl, then create the job with {uploadId}.',
  ),
  responseStatus: 201,
};
