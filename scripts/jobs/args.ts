import { CliError } from '../cli/cli-error.js';
import { type CommandLine, readCommandLine } from '../cli/command-line.js';

// The command line of `npm run jobs`: its commands, their options and their --help texts.

export const COMMANDS = {
  submit: {
    args: 'FILE.csv',
    usage: 'submit FILE.csv [--wait] [--out FILE] [--keep-columns]',
    about: [
      'Uploads a CSV list (or a .csv.gz) and creates a job. With --wait, --out or --keep-columns, shows',
      'its progress, then writes the results (default FILE.results.csv beside the input) and prints the',
      'summary.',
      'The file is checked here first as the API reads it: over 100,000 addresses or 10 MB is refused',
      'before anything is uploaded.',
    ],
    options: ['wait', 'out', 'keep-columns'],
  },
  status: {
    args: 'ID',
    usage: 'status ID',
    about: ['Prints the job as the API shows it (status, processed, summary, ...).'],
    options: [],
  },
  wait: {
    args: 'ID',
    usage: 'wait ID [--out FILE] [--keep-columns --input FILE.csv]',
    about: [
      'Follows a job until it ends (say after Ctrl-C stopped `submit --wait`: the job runs on in the',
      'meantime), then writes its results (default ID.results.csv) and prints the summary.',
    ],
    options: ['out', 'keep-columns', 'input'],
  },
  results: {
    args: 'ID',
    usage: 'results ID [--out FILE] [--keep-columns --input FILE.csv]',
    about: ['Writes the results of a completed job (default ID.results.csv).'],
    options: ['out', 'keep-columns', 'input'],
  },
  list: {
    args: '',
    usage: 'list [--limit N] [--cursor C]',
    about: ['Lists your jobs, newest first (--limit 1 to 100, default 20; --cursor for the next page).'],
    options: ['limit', 'cursor'],
  },
} as const;

export type Command = keyof typeof COMMANDS;

const OPTIONS = {
  wait: { type: 'boolean', default: false },
  out: { type: 'string' },
  'keep-columns': { type: 'boolean', default: false },
  input: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  url: { type: 'string' },
  key: { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const;

export type Values = CommandLine<typeof OPTIONS>['values'];

const COMMON = `options of every command:
  --url URL          the API (or NETINTEL_URL; default: the running local stack, http://localhost:8787)
  --key SECRET_KEY   a secret key (or NETINTEL_SECRET_KEY; default: the local dev account's)
  --json             print JSON only (errors as {"error": ...})
  --data-dir DIR     where the local stack keeps its state (default ./.data of this project)
  --help             this text
File paths are relative to the directory you ran npm from.
--keep-columns writes each input row's own columns before its result columns (rows without an
address get empty result cells); for wait and results, --input names the file that was submitted.`;

export const USAGE = `usage: npm run jobs -- <command> [options]
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}`)
  .join('\n')}
${COMMON}
Help on one command: npm run jobs -- <command> --help`;

export function commandUsage(command: Command): string {
  const c = COMMANDS[command];
  return `usage: npm run jobs -- ${c.usage}\n${c.about.map((l) => `  ${l}`).join('\n')}\n${COMMON}`;
}

function isCommand(name: string | undefined): name is Command {
  return name !== undefined && Object.hasOwn(COMMANDS, name);
}

export function helpHint(command?: Command): string {
  return `npm run jobs -- ${command ? `${command} ` : ''}--help`;
}

export type Parsed =
  | { help: string; refused?: boolean }
  | { command: Command; target: string | undefined; values: Values };

/**
 * The command line read: a --help text to print (`refused` when no command was given: the usage
 * goes to stderr, exit code 2), or a command with its argument and options.
 */
export function parseCommandLine(argv: string[]): Parsed {
  const named = argv.find((a) => !a.startsWith('-'));
  const { values, positionals } = readCommandLine(
    argv,
    OPTIONS,
    helpHint(isCommand(named) ? named : undefined),
  );
  const [name, ...rest] = positionals;
  if (name === undefined) return { help: USAGE, refused: !values.help };
  if (!isCommand(name)) {
    throw new CliError(`unknown command "${name}" (${Object.keys(COMMANDS).join(', ')})`, {
      hint: helpHint(),
    });
  }
  if (values.help) return { help: commandUsage(name) };
  const spec = COMMANDS[name];
  const wanted = spec.args === '' ? 0 : 1;
  if (rest.length !== wanted) {
    throw new CliError(wanted === 0 ? `${name} takes no argument` : `${name} takes one ${spec.args}`, {
      hint: helpHint(name),
    });
  }
  const own = new Set<string>(spec.options);
  for (const option of ['wait', 'out', 'keep-columns', 'input', 'limit', 'cursor'] as const) {
    const given = values[option];
    if (given !== undefined && given !== false && !own.has(option)) {
      throw new CliError(`--${option} is not an option of ${name}`, { hint: helpHint(name) });
    }
  }
  if (values.input !== undefined && !values['keep-columns']) {
    throw new CliError('--input is only read with --keep-columns', { hint: helpHint(name) });
  }
  if (values['keep-columns'] && name !== 'submit' && values.input === undefined) {
    throw new CliError(`--keep-columns needs --input FILE.csv, the file the job was made from`, {
      hint: helpHint(name),
    });
  }
  return { command: name, target: rest[0], values };
}
