/**
 * What the command-line tools (`npm run jobs`, `npm run admin`, `npm run data:refresh`) report and
 * stop on: a one-line message, an optional hint (what to run instead), and the exit code, 2 for
 * input to correct (usage, a file or a list the API would refuse, a 4xx answer) and 1 for a failure
 * (no server, a 5xx, a job that failed).
 */
export class CliError extends Error {
  readonly exitCode: 1 | 2;
  readonly hint?: string;
  /** The HTTP status and error code of an API answer. */
  readonly status?: number;
  readonly code?: string;
  readonly retryAfterSeconds?: number;

  constructor(
    message: string,
    options: {
      exitCode?: 1 | 2;
      hint?: string;
      status?: number;
      code?: string;
      retryAfterSeconds?: number;
    } = {},
  ) {
    super(message);
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? 2;
    this.hint = options.hint;
    this.status = options.status;
    this.code = options.code;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
