import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from '../../functions/lib/zod.js';
import { CliError } from '../cli/cli-error.js';
import { JobsApi } from './api-client.js';
import type { Values } from './args.js';

// Which API `npm run jobs` talks to, and with which key: --url / --key, else NETINTEL_URL /
// NETINTEL_SECRET_KEY, else the local stack (`npm start` writes its address to
// DATA_DIR/endpoints.json and its dev account to DATA_DIR/dev-account.json).

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DEFAULT_PORT = 8787;

const EndpointsFile = z.object({ api: z.string() });
const DevAccountFile = z.object({ secretKey: z.string() });

async function readJson<T>(file: string, schema: z.ZodMiniType<T>): Promise<T | undefined> {
  try {
    const parsed = schema.safeParse(JSON.parse(await readFile(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function isLocal(url: string): boolean {
  try {
    return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

export async function connect(
  values: Values,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<JobsApi> {
  // npm runs scripts from the project directory, where `npm start` keeps DATA_DIR.
  const dataDir = values['data-dir']
    ? resolve(cwd, values['data-dir'])
    : resolve(PROJECT_ROOT, env.DATA_DIR ?? '.data');
  const given = values.url ?? env.NETINTEL_URL;
  const local = await readJson(join(dataDir, 'endpoints.json'), EndpointsFile);
  const url = (given ?? local?.api ?? `http://localhost:${env.PORT ?? DEFAULT_PORT}`).replace(/\/+$/, '');
  try {
    new URL(url);
  } catch {
    throw new CliError(`"${url}" is not a URL`, {
      hint: 'set NETINTEL_URL (or --url) to the API address, e.g. https://api.example.com',
    });
  }
  // The local dev account's key is only ever sent to a local API.
  const devKey = isLocal(url)
    ? (await readJson(join(dataDir, 'dev-account.json'), DevAccountFile))?.secretKey
    : undefined;
  const key = values.key ?? env.NETINTEL_SECRET_KEY ?? devKey;
  if (!key) {
    throw new CliError(`no secret key for ${url}: set NETINTEL_SECRET_KEY (or --key)`, {
      hint: isLocal(url)
        ? 'run `npm start` once: it creates a local dev account and prints its secret key'
        : 'create one with `npm run admin -- key create --account ID --type secret`',
    });
  }
  return new JobsApi(url, key);
}
