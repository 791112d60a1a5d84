import { createWriteStream, statSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Job } from '@netintel/client';
import { parse } from 'csv-parse';
import { CliError } from '../cli/cli-error.js';
import { wholeNumber } from '../cli/command-line.js';
import { printable, printableJson } from '../cli/printable.js';
import type { JobsApi } from './api-client.js';
import { type Command, helpHint, type Values } from './args.js';
import { KeepColumnsError, keepColumns } from './keep-columns.js';
import { listRecords, readList } from './list-file.js';
import { ProgressReporter } from './progress.js';

// The commands of `npm run jobs` (see args.ts for their --help). Each prints what a script would
// read on stdout (a job, a summary, a list) and what a person watches on stderr (progress, where
// the results went, what to run next).

/** Where a command writes and what it runs against; the tests pass their own. */
export interface JobsIo {
  /** A line on stdout. */
  out(text: string): void;
  /** A line on stderr. */
  err(text: string): void;
  /** Redraws the progress line in place (a terminal); without it progress is printed as lines. */
  status?(line: string): void;
  env: Record<string, string | undefined>;
  /** Where relative paths on the command line start (npm's INIT_CWD: where `npm run` was typed). */
  cwd: string;
  /** The wait between two polls (default POLL_INTERVAL_MS). */
  pollIntervalMs?: number;
  now?(): number;
}

export interface JobsContext {
  io: JobsIo;
  values: Values;
  api(): Promise<JobsApi>;
}

/** Between two polls: at most 30 calls a minute, well inside every plan's per-minute limit. */
export const POLL_INTERVAL_MS = 2_000;

const running = (status: string) => status === 'queued' || status === 'processing';
const path = (ctx: JobsContext, file: string) => resolve(ctx.io.cwd, file);

function print(ctx: JobsContext, value: unknown): void {
  ctx.io.out(printableJson(value, ctx.values.json ? 0 : 2));
}

/**
 * Follows a job to its end with the client's jobs.wait, showing progress and time left (the
 * client waits out a 429 as the API says).
 */
async function follow(ctx: JobsContext, api: JobsApi, start: Job): Promise<Job> {
  const { io } = ctx;
  const now = io.now ?? Date.now;
  const progress = new ProgressReporter((line) => io.err(line), io.status);
  if (!running(start.status)) return start;
  progress.update(start, now());
  try {
    const job = await api.wait(
      start.id,
      (seen) => progress.update(seen, now()),
      io.pollIntervalMs ?? POLL_INTERVAL_MS,
    );
    progress.done();
    return job;
  } catch (err) {
    progress.done();
    if (err instanceof CliError && err.exitCode === 1) {
      throw new CliError(err.message, {
        exitCode: 1,
        hint: `the job goes on; follow it again with npm run jobs -- wait ${start.id}`,
      });
    }
    throw err;
  }
}

/** Why a job has no results to download, and what to run. */
function noResults(job: Job): CliError {
  if (running(job.status)) {
    return new CliError(`job ${job.id} is ${job.status} (${job.processed}/${job.total} rows checked)`, {
      hint: `npm run jobs -- wait ${job.id}`,
    });
  }
  if (job.status === 'failed') {
    return new CliError(
      `job ${job.id} failed: it has no results; the credits of its unchecked part were returned`,
      { exitCode: 1 },
    );
  }
  return new CliError(
    `job ${job.id} is ${job.status}: its results were deleted 7 days after it was created`,
    {
      exitCode: 1,
    },
  );
}

/**
 * Writes a completed job's results to `out` (through a .partial file, so a broken download or a
 * mismatched --keep-columns input never leaves a half file under the real name).
 */
async function download(
  ctx: JobsContext,
  api: JobsApi,
  job: Job,
  out: string,
  input?: { file: string; width: number },
) {
  if (job.status !== 'completed') throw noResults(job);
  const partial = `${out}.partial`;
  const results = await api.results(job.id);
  try {
    let body: Readable = results;
    if (input) {
      const rows = results.pipe(parse());
      results.once('error', (err) => rows.destroy(err));
      body = Readable.from(keepColumns(listRecords(input.file), rows, input.width));
    }
    await pipeline(body, createWriteStream(partial));
    await rename(partial, out);
  } catch (err) {
    results.destroy();
    await rm(partial, { force: true });
    if (err instanceof KeepColumnsError) {
      throw new CliError(err.message, {
        hint: `without --keep-columns, npm run jobs -- results ${job.id} writes the results alone`,
      });
    }
    // A download cut off or a disk that filled up: the job and its results are still there.
    throw new CliError(`the results were not written to ${out}: ${(err as Error).message}`, {
      exitCode: 1,
      hint: `the results stay for 7 days: npm run jobs -- results ${job.id} --out FILE`,
    });
  }
  ctx.io.err(`results written to ${out}`);
  print(ctx, ctx.values.json ? job : job.summary);
}

/**
 * Where the results will go, checked before anything is created or downloaded (a job is charged
 * when it is created): a file that may be written, not a directory, in a folder that exists.
 */
async function checkOut(out: string): Promise<void> {
  const hint = 'name a file in a folder that exists and that you may write to: --out FILE';
  if (statSync(out, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CliError(`--out is a directory: ${out}`, { hint });
  }
  // The download writes `${out}.partial` first, then renames it.
  const partial = `${out}.partial`;
  try {
    await writeFile(partial, '', { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw new CliError(`cannot write the results to ${out}: ${(err as Error).message}`, { hint });
  }
  await rm(partial, { force: true });
}

/** A list to read: a file that is there (a directory or a device is the user's to correct, exit 2). */
function checkFile(file: string, hint?: string): void {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile())
    throw new CliError(`${stat ? 'not a file' : 'no such file'}: ${file}`, hint ? { hint } : {});
}

/** The input to put beside the results (--keep-columns): read, and so checked, first. */
async function keptInput(ctx: JobsContext): Promise<{ file: string; width: number } | undefined> {
  if (!ctx.values['keep-columns'] || ctx.values.input === undefined) return undefined;
  const file = path(ctx, ctx.values.input);
  checkFile(file);
  return { file, width: (await readList(file)).width };
}

async function submit(ctx: JobsContext, file: string): Promise<void> {
  const { io, values } = ctx;
  const input = path(ctx, file);
  checkFile(input, helpHint('submit'));
  // Checked here as the API will read it: a refused list is never uploaded.
  const facts = await readList(input);
  const waits = Boolean(values.wait || values.out || values['keep-columns']);
  const out = values.out ? path(ctx, values.out) : `${input.replace(/\.csv(\.gz)?$/i, '')}.results.csv`;
  if (waits) await checkOut(out);
  const api = await ctx.api();
  let job = await api.create(await readFile(input), basename(input));
  io.err(`job ${job.id}: ${job.total} rows, ${job.credits} credits charged`);
  if (!waits) {
    print(ctx, job);
    io.err(`follow it with: npm run jobs -- wait ${job.id}`);
    return;
  }
  io.err(`Ctrl-C stops waiting, not the job: npm run jobs -- wait ${job.id} picks it up again`);
  job = await follow(ctx, api, job);
  await download(
    ctx,
    api,
    job,
    out,
    values['keep-columns'] ? { file: input, width: facts.width } : undefined,
  );
}

async function status(ctx: JobsContext, id: string): Promise<void> {
  print(ctx, await (await ctx.api()).job(id));
}

/** `results` writes a completed job's results (default ID.results.csv); `wait` follows it to its end first. */
async function saveResults(ctx: JobsContext, id: string, until: 'now' | 'ended'): Promise<void> {
  const input = await keptInput(ctx);
  const out = path(ctx, ctx.values.out || `${id}.results.csv`);
  await checkOut(out);
  const api = await ctx.api();
  const job = until === 'ended' ? await follow(ctx, api, await api.job(id)) : await api.job(id);
  await download(ctx, api, job, out, input);
}

async function list(ctx: JobsContext): Promise<void> {
  const { io, values } = ctx;
  const limit = wholeNumber('limit', values.limit, { min: 1, max: 100, hint: helpHint('list') }) ?? 20;
  const page = await (await ctx.api()).jobs(limit, values.cursor);
  if (values.json) return print(ctx, page);
  if (page.jobs.length === 0) io.out('no jobs');
  else {
    // Each cell escaped whole (a line break too): a filename stored before control characters were
    // refused could otherwise forge a row or drive the terminal.
    const rows = page.jobs.map((j) =>
      [j.id, j.status, `${j.processed}/${j.total}`, j.createdAt, j.filename ?? ''].map((cell) =>
        printable(cell),
      ),
    );
    const head = ['ID', 'STATUS', 'CHECKED', 'CREATED', 'FILENAME'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const r of [head, ...rows])
      io.out(
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      );
  }
  if (page.nextCursor) io.err(`more: npm run jobs -- list --cursor ${page.nextCursor}`);
}

export const COMMAND_RUNNERS: Record<Command, (ctx: JobsContext, target: string) => Promise<void>> = {
  submit,
  status,
  wait: (ctx, id) => saveResults(ctx, id, 'ended'),
  results: (ctx, id) => saveResults(ctx, id, 'now'),
  list: (ctx) => list(ctx),
};
