import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import * as z from 'zod';
import { UploadTicketSchema } from '../../functions/jobs-upload/contract.js';
import { type Job, JobSchema } from '../../functions/lib/jobs/job.js';
import { CliError } from '../cli/cli-error.js';

// The list-job routes as `npm run jobs` calls them: each answer is checked against the route's
// schema, an error answer becomes a CliError carrying the API's own message, and a server that is
// not there is said so with the address tried.

const JobPageSchema = z.object({ jobs: z.array(JobSchema), nextCursor: z.string().nullable() });
const ErrorBodySchema = z.object({ error: z.string(), message: z.string() });
export type JobPage = z.infer<typeof JobPageSchema>;

/** Bodies up to this size go straight to POST /v1/email/jobs; larger ones through an upload URL. */
export const DIRECT_LIMIT_BYTES = 4 * 1024 * 1024;

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The message for a server that cannot be reached, with the way out. */
export function unreachable(url: string, cause: unknown): CliError {
  const code = (cause as { cause?: { code?: string } }).cause?.code;
  const local = LOCAL_HOSTS.has(new URL(url).hostname);
  const why = code && code !== 'ECONNREFUSED' ? ` (${code})` : '';
  return new CliError(
    `Cannot reach the API at ${url}${why}${local ? ' — is `npm start` running?' : ''} Set NETINTEL_URL to use another address.`,
    { exitCode: 1 },
  );
}

export class JobsApi {
  constructor(
    readonly url: string,
    private readonly key: string,
  ) {}

  private async call(path: string, init: RequestInit = {}): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(this.url + path, {
        ...init,
        headers: { Authorization: `Bearer ${this.key}`, ...init.headers },
      });
    } catch (err) {
      throw unreachable(this.url, err);
    }
    if (res.status >= 400) throw await apiError(res);
    return res;
  }

  async job(id: string): Promise<Job> {
    return JobSchema.parse(await (await this.call(`/v1/email/jobs/${encodeURIComponent(id)}`)).json());
  }

  async jobs(limit: number, cursor?: string): Promise<JobPage> {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    return JobPageSchema.parse(await (await this.call(`/v1/email/jobs?${query}`)).json());
  }

  /** The results CSV as a stream (fetch follows the redirect large results come from). */
  async results(id: string): Promise<Readable> {
    const res = await this.call(`/v1/email/jobs/${encodeURIComponent(id)}/results`);
    return Readable.fromWeb(res.body! as import('node:stream/web').ReadableStream);
  }

  /**
   * Creates a job from a CSV file's bytes (`gzipped` when the file is a .csv.gz): a text/csv body,
   * gzip-compressed when that makes it smaller, up to DIRECT_LIMIT_BYTES (one API call carries
   * at most 6 MB); otherwise the compressed file goes through a presigned upload first.
   */
  async create(file: Buffer, filename: string, gzipped: boolean): Promise<Job> {
    const compressed = gzipped ? file : gzipSync(file);
    const body = compressed.length < file.length || gzipped ? compressed : file;
    if (body.length <= DIRECT_LIMIT_BYTES) {
      const res = await this.call(`/v1/email/jobs?filename=${encodeURIComponent(filename)}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'text/csv',
          ...(body === compressed ? { 'Content-Encoding': 'gzip' } : {}),
        },
        body,
      });
      return JobSchema.parse(await res.json());
    }
    const ticket = UploadTicketSchema.parse(
      await (await this.call('/v1/email/jobs/uploads', { method: 'POST' })).json(),
    );
    // A browser-form upload: the presigned fields first, the file last (S3 POST Object).
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
    form.append('file', new Blob([compressed]), filename);
    let posted: Response;
    try {
      posted = await fetch(ticket.uploadUrl, { method: 'POST', body: form });
    } catch (err) {
      throw unreachable(new URL(ticket.uploadUrl).origin, err);
    }
    if (!posted.ok) {
      throw new CliError(`The upload was refused: ${posted.status} ${await posted.text()}`, { exitCode: 1 });
    }
    const res = await this.call('/v1/email/jobs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ uploadId: ticket.uploadId, filename }),
    });
    return JobSchema.parse(await res.json());
  }
}

/** An error answer as the CLI reports it: 4xx is the caller's to fix (exit 2), 5xx a failure (1). */
async function apiError(res: Response): Promise<CliError> {
  const parsed = ErrorBodySchema.safeParse(await res.json().catch(() => null));
  const detail = parsed.success ? `${parsed.data.error}: ${parsed.data.message}` : res.statusText;
  return new CliError(`The API answered ${res.status} ${detail}`, {
    exitCode: res.status < 500 ? 2 : 1,
    status: res.status,
    code: parsed.success ? parsed.data.error : undefined,
    retryAfterSeconds: Number(res.headers.get('retry-after')) || undefined,
  });
}
