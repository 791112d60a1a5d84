import { CliError } from '../cli/cli-error.js';
import { printableJson, printingSafely } from '../cli/printable.js';
import { parseCommandLine } from './args.js';
import { COMMAND_RUNNERS, type JobsContext, type JobsIo } from './commands.js';
import { connect } from './connection.js';
import { ListFileError } from './list-file.js';

export type { JobsIo } from './commands.js';

// `npm run jobs -- <command>`: list jobs from the command line. runJobs() is the whole CLI with
// its arguments, output, environment and working directory passed in, so the tests run it in
// this process; scripts/jobs.ts is the command-line entry.

/** Runs one jobs command; answers its exit code (0 done, 2 input to correct, 1 failure). */
export async function runJobs(argv: string[], given: JobsIo): Promise<number> {
  const json = argv.includes('--json');
  const io = printingSafely(given);
  try {
    const parsed = parseCommandLine(argv);
    if ('help' in parsed) {
      if (parsed.refused) io.err(parsed.help);
      else io.out(parsed.help);
      return parsed.refused ? 2 : 0;
    }
    const ctx: JobsContext = { io, values: parsed.values, api: () => connect(parsed.values, io.env, io.cwd) };
    await COMMAND_RUNNERS[parsed.command](ctx, parsed.target ?? '');
    return 0;
  } catch (err) {
    const error =
      err instanceof CliError
        ? err
        : err instanceof ListFileError
          ? new CliError(err.message)
          : new CliError(`failed: ${(err as Error).message}`, { exitCode: 1 });
    if (json) io.err(printableJson({ error: error.message, ...(error.hint ? { hint: error.hint } : {}) }));
    else {
      io.err(`error: ${error.message}`);
      if (error.hint) io.err(`hint: ${error.hint}`);
    }
    return error.exitCode;
  }
}
