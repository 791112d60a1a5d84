import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { type Job, type JobPage, Netintel, NetintelError } from '@netintel/client';
import { CliError } from '../cli/cli-error.js';

// `npm run jobs` on the TypeScript client (@netintel/client, clients/typescript): the upload,
// polling and download are the client's; this adapter turns its errors into the CLI's, with the
// API's own message, exit code 2 for what the caller must fix and 1 for a failure, and a server
// that is not there said so with the address tried.

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The message for a server that cannot be reached, with the way out. */
function unreachable(url: string, cause: unknown): CliError {
  const code = (cause as { cause?: { code?: string } } | undefined)?.cause?.code;
  const local = LOCAL_HOSTS.has(new URL(url).hostname);
  const why = code && code !== 'ECONNREFUSED' ? ` (${code})` : '';
  return new CliError(
    `Cannot reach the API at ${url}${why}${local ? ' — is `npm start` running?' : ''} Set NETINTEL_URL to use another address.`,
    { exitCode: 1 },
  );
}

/** A failure of the client as the CLI reports it. */
export function cliError(url: string, error: unknown): unknown {
  if (!(error instanceof NetintelError)) return error;
  if (error.code === 'network_error') return unreachable(url, error.cause);
  if (error.code === 'timeout') {
    return new CliError(`${error.message}. Try again later, or set NETINTEL_URL to use another address.`, {
      exitCode: 1,
    });
  }
  if (error.status === 0) return new CliError(error.message, { exitCode: 1 });
  return new CliError(`The API answered ${error.status} ${error.code}: ${error.message}`, {
    exitCode: error.status < 500 ? 2 : 1,
    status: error.status,
    code: error.code,
    retryAfterSeconds: error.retryAfterSeconds,
  });
}

export class JobsApi {
  private readonly client: Netintel;

  constructor(
    readonly url: string,
    key: string,
  ) {
    this.client = new Netintel({ baseUrl: url, secretKey: key });
  }

  private async call<T>(work: (client: Netintel) => Promise<T>): Promise<T> {
    try {
      return await work(this.client);
    } catch (error) {
      throw cliError(this.url, error);
    }
  }

  job(id: string): Promise<Job> {
    return this.call((c) => c.jobs.get(id));
  }

  jobs(limit: number, cursor?: string): Promise<JobPage> {
    return this.call((c) => c.jobs.list({ limit, cursor }));
  }

  /** Polls the job every `intervalMs` until it ends; `onProgress` sees each answer. */
  wait(id: string, onProgress: (job: Job) => void, intervalMs: number): Promise<Job> {
    return this.call((c) => c.jobs.wait(id, { onProgress, intervalMs, maxIntervalMs: intervalMs }));
  }

  /** The results CSV as a Node stream, byte for byte. */
  async results(id: string): Promise<Readable> {
    const body = await this.call((c) => c.jobs.resultsFile(id));
    return Readable.fromWeb(body as NodeReadableStream<Uint8Array>);
  }

  /** Creates a job from a CSV file's bytes (gzip-compressed or not): the client picks direct or upload URL. */
  create(file: Uint8Array, filename: string): Promise<Job> {
    return this.call((c) => c.jobs.create(file, { filename }));
  }
}
