import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { type Endpoints, LOCAL_CREDENTIALS } from '../../scripts/local/emulators.js';
import type { DevAccount } from '../../scripts/local/seed.js';

// `npm start` (scripts/start.ts) in a child process of its own, on a free loopback port and a data
// directory the test owns, as a user runs it: what the crash tests kill with SIGKILL and start again.

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** The signal or exit code it ended with. */
  exited: Promise<string | number | null>;
  dev: DevAccount;
  endpoints: Endpoints & { api: string };
  /** What it printed so far. */
  output(): string;
}

/**
 * `npm start` spawned on `dataDir` (PORT 0 on 127.0.0.1 unless `env` says otherwise), with none of
 * this process's emulator endpoints, Node options or crash point.
 */
export function spawnServer(dataDir: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(base)) if (name.startsWith('AWS_ENDPOINT_URL')) delete base[name];
  delete base.NODE_OPTIONS;
  delete base.NETINTEL_CRASH_AT;
  return spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      ...base,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // The bounds of a test stack (local-stack.ts), not Lambda's 1-2 s: on a loaded 2-core machine
      // a race of 16 callers against one emulator answered 503 when a call waited over 2 s. What
      // these servers test is the answers; hung dependencies have tests of their own.
      AWS_CONNECT_TIMEOUT_MS: '10000',
      AWS_REQUEST_TIMEOUT_MS: '60000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** `npm start` on `dataDir`, once it serves: its address, dev account and emulator endpoints. */
export async function startServerProcess(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
): Promise<ServerProcess> {
  const child = spawnServer(dataDir, env);
  const exited = new Promise<string | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const banner = /running at (http:\/\/\S+)/.exec(output);
      if (banner) resolve(banner[1]!);
    });
    void exited.then((how) => reject(new Error(`the server stopped (${how}) before it served:\n${output}`)));
  });
  const read = async <T>(file: string) => JSON.parse(await readFile(join(dataDir, file), 'utf8')) as T;
  return {
    url,
    child,
    exited,
    dev: await read<DevAccount>('dev-account.json'),
    endpoints: await read<Endpoints & { api: string }>('endpoints.json'),
    output: () => output,
  };
}

/** A client of the server's DynamoDB emulator (its endpoints.json), to read what it stored. */
export function dynamoAt(endpoints: Endpoints): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: endpoints.dynamodb,
      region: endpoints.region,
      credentials: LOCAL_CREDENTIALS,
    }),
  );
}
