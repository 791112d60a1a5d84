import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isWellFormedKey, KEY_PREFIX, TEST_KEY_PREFIX } from '../../functions/lib/accounts/api-key.js';
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

const SECRET_KEY_HINT = 'create one with `npm run admin -- key create --account ID --type secret`';

/**
 * The key, when it has the form of a secret key (functions/lib/accounts/api-key.ts); else the refusal,
 * before anything is sent, that names where the key came from (`source`) without quoting it: a
 * mistyped secret key is still a secret.
 */
export function checkedSecretKey(key: string, source: string): string {
  if ([KEY_PREFIX.publishable, TEST_KEY_PREFIX.publishable].some((prefix) => key.startsWith(prefix))) {
    throw new CliError(
      `${source} is a publishable key (${KEY_PREFIX.publishable}…), which is for browsers: npm run jobs needs a secret key (${KEY_PREFIX.secret}… or ${TEST_KEY_PREFIX.secret}…)`,
      { hint: SECRET_KEY_HINT },
    );
  }
  if (!isWellFormedKey(key)) {
    throw new CliError(
      `${source} is not a secret key: one is ${KEY_PREFIX.secret} (or ${TEST_KEY_PREFIX.secret}) and 32 letters, digits, - or _`,
      { hint: SECRET_KEY_HINT },
    );
  }
  return key;
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
  const urlHint = 'set NETINTEL_URL (or --url) to the API address, e.g. https://api.example.com';
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    throw new CliError(`"${url}" is not a URL`, { hint: urlHint });
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new CliError(`"${url}" is not an http:// or https:// URL`, { hint: urlHint });
  }
  // The local dev account's key is only ever sent to a local API.
  const devKey = isLocal(url)
    ? (await readJson(join(dataDir, 'dev-account.json'), DevAccountFile))?.secretKey
    : undefined;
  const [key, source] =
    values.key !== undefined
      ? [values.key, '--key']
      : env.NETINTEL_SECRET_KEY !== undefined
        ? [env.NETINTEL_SECRET_KEY, 'NETINTEL_SECRET_KEY']
        : [devKey, join(dataDir, 'dev-account.json')];
  if (!key) {
    throw new CliError(`no secret key for ${url}: set NETINTEL_SECRET_KEY (or --key)`, {
      hint: isLocal(url)
        ? 'run `npm start` once: it creates a local dev account and prints its secret key'
        : 'create one with `npm run admin -- key create --account ID --type secret`',
    });
  }
  return new JobsApi(url, checkedSecretKey(key, source));
}
