import { type ParseArgsConfig, parseArgs } from 'node:util';
import { CliError } from './cli-error.js';

// The command line of every tool in scripts/, read by Node's own parser (util.parseArgs).

type Options = NonNullable<ParseArgsConfig['options']>;

export type CommandLine<O extends Options> = ReturnType<
  typeof parseArgs<{ options: O; allowPositionals: true }>
>;

/**
 * The options and positionals of `args`. Unknown flags, values that look like flags ("--limit -3")
 * and an option given twice that takes one value (Node's parser keeps the last silently) are input
 * to correct: a CliError of one line, with `hint` when the caller knows where to look.
 */
export function readCommandLine<O extends Options>(
  args: string[],
  options: O,
  hint?: string,
): CommandLine<O> {
  let parsed: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; tokens: true }>>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, tokens: true });
  } catch (err) {
    throw new CliError((err as Error).message.replace(/\s*\n\s*/g, ' '), { hint });
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || options[token.name]?.multiple) continue;
    if (seen.has(token.name)) throw new CliError(`--${token.name} is given more than once`, { hint });
    seen.add(token.name);
  }
  const { values, positionals } = parsed;
  return { values, positionals } as CommandLine<O>;
}

/** A whole-number option from `min` (to `max`), or undefined when it was not given. */
export function wholeNumber(
  option: string,
  raw: string | undefined,
  range: { min: number; max?: number; hint?: string },
): number | undefined {
  if (raw === undefined) return undefined;
  const { min, hint } = range;
  // Digits only (not 0x10, 1e3 or 1.0), and never past what is stored exactly as a number.
  const max = Math.min(range.max ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const n = /^-?\d{1,16}$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const bounds = range.max === undefined ? `of ${min} or more, at most ${max}` : `from ${min} to ${max}`;
    throw new CliError(`--${option} must be a whole number ${bounds}`, { hint });
  }
  return n;
}
