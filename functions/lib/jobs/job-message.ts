import * as z from '../zod.js';

/**
 * The body of a job queue message: one chunk of a list job. The consumers parse it with this schema
 * (a body that does not match fails its record, never the batch) and the producer types with it.
 */
export const JobMessageSchema = z.object({
  jobId: z.string().check(z.minLength(1)),
  chunk: z.number().check(z.int(), z.nonnegative()),
});
export type JobMessage = z.infer<typeof JobMessageSchema>;

/** Parses a message body (JSON text); throws on anything else. */
export function parseJobMessage(body: string): JobMessage {
  return JobMessageSchema.parse(JSON.parse(body));
}
