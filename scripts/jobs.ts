import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';

// `npm run jobs -- submit FILE.csv [--wait] [--out results.csv]`: uploads a list, shows progress
// while the job runs, downloads the results and prints the summary.
//   --url / NETINTEL_URL          base URL (default: the running local stack under DATA_DIR)
//   --key / NETINTEL_SECRET_KEY   secret key (default: the local dev account's)
// Files up to 4 MB are posted as text/csv (gzip-compressed when that helps); larger ones are
// posted, gzip-compressed, to a presigned upload (a form POST to S3) first, since one API call
// carries at most 6 MB.

const USAGE =
  'usage: npm run jobs -- submit FILE.csv [--wait] [--out results.csv] [--url URL] [--key SECRET_KEY] [--json]';
const DIRECT_LIMIT = 4 * 1024 * 1024;

function parseCommandLine() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        wait: { type: 'boolean', default: false },
        out: { type: 'string' },
        url: { type: 'string' },
        key: { type: 'string' },
        json: { type: 'boolean', default: false },
        'data-dir': { type: 'string' },
      },
    });
  } catch (err) {
    // Unknown flags and values that look like flags ("--per-minute -3") are usage errors.
    const message = (err as Error).message;
    console.error(
      process.argv.includes('--json') ? JSON.stringify({ error: message }) : `${message}\n${USAGE}`,
    );
    process.exit(2);
  }
}

const { values, positionals } = parseCommandLine();

class CliError extends Error {}

async function localDefaults(): Promise<{ url?: string; key?: string }> {
  const dir = resolve(values['data-dir'] ?? process.env.DATA_DIR ?? '.data');
  const endpoints = join(dir, 'endpoints.json');
  const dev = join(dir, 'dev-account.json');
  return {
    url: existsSync(endpoints)
      ? (JSON.parse(await readFile(endpoints, 'utf8')) as { api: string }).api
      : undefined,
    key: existsSync(dev)
      ? (JSON.parse(await readFile(dev, 'utf8')) as { secretKey: string }).secretKey
      : undefined,
  };
}

async function api(url: string, key: string, path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url + path, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, ...init.headers },
  });
  if (res.status >= 400) {
    const body = (await res.json().catch(() => ({}))) as { error?: string; message?: string };
    throw new CliError(`${res.status} ${body.error ?? ''}: ${body.message ?? res.statusText}`);
  }
  return res;
}

interface Job {
  id: string;
  status: string;
  total: number;
  credits: number;
  processed: number;
  summary: unknown;
}

function progress(job: Job): void {
  if (!process.stderr.isTTY && !values.wait) return;
  const width = 30;
  const done = job.total === 0 ? 0 : job.processed / job.total;
  const bar = '#'.repeat(Math.round(done * width)).padEnd(width, ' ');
  process.stderr.write(
    `\r[${bar}] ${(done * 100).toFixed(0).padStart(3)}% ${job.processed}/${job.total} ${job.status}   `,
  );
}

async function submit(file: string, url: string, key: string): Promise<void> {
  const size = (await stat(file)).size;
  const raw = await readFile(file);
  const filename = basename(file);
  let res: Response;
  if (size <= DIRECT_LIMIT) {
    const gz = gzipSync(raw);
    const small = gz.length < raw.length;
    res = await api(url, key, `/v1/email/jobs?filename=${encodeURIComponent(filename)}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv', ...(small ? { 'Content-Encoding': 'gzip' } : {}) },
      body: small ? gz : raw,
    });
  } else {
    const ticket = (await (await api(url, key, '/v1/email/jobs/uploads', { method: 'POST' })).json()) as {
      uploadId: string;
      uploadUrl: string;
      fields: Record<string, string>;
    };
    // A browser-form upload: the presigned fields first, the file last (S3 POST Object).
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
    form.append('file', new Blob([gzipSync(raw)]), filename);
    const posted = await fetch(ticket.uploadUrl, { method: 'POST', body: form });
    if (!posted.ok) throw new CliError(`upload failed: ${posted.status} ${await posted.text()}`);
    res = await api(url, key, '/v1/email/jobs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ uploadId: ticket.uploadId, filename }),
    });
  }
  let job = (await res.json()) as Job;
  process.stderr.write(`job ${job.id}: ${job.total} rows, ${job.credits} credits charged\n`);
  if (!values.wait && !values.out) {
    console.log(JSON.stringify(job, null, values.json ? 0 : 2));
    return;
  }
  while (job.status === 'queued' || job.status === 'processing') {
    progress(job);
    await new Promise((r) => setTimeout(r, 1000));
    job = (await (await api(url, key, `/v1/email/jobs/${job.id}`)).json()) as Job;
  }
  progress(job);
  process.stderr.write('\n');
  if (job.status !== 'completed') throw new CliError(`job ${job.id} ended ${job.status}`);
  const out = values.out ?? `${file.replace(/\.csv$/i, '')}.results.csv`;
  // fetch follows the redirect to the presigned URL that large results come from.
  const csv = await (await api(url, key, `/v1/email/jobs/${job.id}/results`)).arrayBuffer();
  await writeFile(out, Buffer.from(csv));
  process.stderr.write(`results written to ${out}\n`);
  console.log(JSON.stringify(values.json ? job : job.summary, null, values.json ? 0 : 2));
}

try {
  const [command, file] = positionals;
  if (command !== 'submit' || !file) throw new CliError(USAGE);
  if (!existsSync(file)) throw new CliError(`no such file: ${file}`);
  const local = await localDefaults();
  const url = values.url ?? process.env.NETINTEL_URL ?? local.url;
  const key = values.key ?? process.env.NETINTEL_SECRET_KEY ?? local.key;
  if (!url || !key)
    throw new CliError(
      'set --url and --key (or NETINTEL_URL and NETINTEL_SECRET_KEY), or start the local stack',
    );
  await submit(file, url.replace(/\/$/, ''), key);
} catch (err) {
  console.error(err instanceof CliError ? err.message : `failed: ${(err as Error).message}`);
  process.exitCode = err instanceof CliError ? 2 : 1;
}
