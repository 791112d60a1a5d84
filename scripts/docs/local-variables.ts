import { LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { JOB_QUEUE } from '../../functions/lib/aws/resources.js';
import { CRASH_POINTS } from '../../functions/lib/jobs/job-creation.js';

// The variables the local stack and the command-line tools read themselves (scripts/, bench/,
// test/support/), which the functions' configuration schema (functions/lib/runtime/config.ts) does
// not hold. docs/configuration.md lists them after the schema's (npm run docs:generate): a variable
// added to a script belongs here too.

export interface LocalVariable {
  name: string;
  /** What an unset variable means. */
  default: string;
  /** What it does. */
  meaning: string;
  /** Which command reads it. */
  readBy: string;
}

export const LOCAL_VARIABLES: readonly LocalVariable[] = [
  {
    name: 'PORT',
    default: '`8787`',
    meaning: 'Port of the local server: 0 to 65535 (0: one the system picks).',
    readBy: '`npm start`, `npm run jobs`',
  },
  {
    name: 'HOST',
    default: '`127.0.0.1`',
    meaning: 'Address the local server listens on.',
    readBy: '`npm start`',
  },
  {
    name: 'WORKERS',
    default: '`1`',
    meaning:
      'Processes answering HTTP (1 to 64); above 1, worker processes share the port, each like a Lambda container of every function.',
    readBy: '`npm start`',
  },
  {
    name: 'DATA_DIR',
    default: '`./.data`',
    meaning:
      'Local state: DynamoDB, S3, dev keys, the outbox, `endpoints.json`, `user-id-secret`, and `npm-start.pid` while an `npm start` uses it. A folder, made when missing (`npm start` refuses a file, and a folder it may not read and write or make).',
    readBy: '`npm start`, `npm run admin`, `npm run jobs`',
  },
  {
    name: 'TRUST_FORWARDED_FOR',
    default: '`false`',
    meaning:
      'Take the client IP from the first `X-Forwarded-For` entry when it is an IP address (to try `GET /v1/geo` with another address); anything else there is ignored, an address with a zone id (`fe80::1%eth0`) included.',
    readBy: '`npm start`',
  },
  {
    name: 'LOG_FORMAT',
    default: '`pretty` in a terminal, else `json`',
    meaning: 'Readable log lines or Powertools JSON.',
    readBy: '`npm start`',
  },
  {
    name: 'POWERTOOLS_LOG_LEVEL',
    default: '`INFO` under `npm start`, `WARN` in test stacks',
    meaning: `Log level (read by Powertools): ${Object.keys(LogLevelThreshold)
      .map((level) => `\`${level}\``)
      .join(', ')}, in any case for \`npm start\`; \`WARN\` hides the access log, \`SILENT\` everything.`,
    readBy: '`npm start`, the functions',
  },
  {
    name: 'AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SQS',
    default: 'the embedded emulators',
    meaning:
      'Use another DynamoDB or SQS endpoint instead (with `AWS_ENDPOINT_URL` and `AWS_ENDPOINT_URL_S3` above).',
    readBy: '`npm start`',
  },
  {
    name: 'JOBS_RETRY_DELAY_SECONDS',
    default: `\`${JOB_QUEUE.visibilityTimeoutSeconds}\``,
    meaning:
      "Local job poller: how long a failed chunk stays invisible (in AWS: the queue's visibility timeout).",
    readBy: '`npm start`',
  },
  {
    name: 'NETINTEL_URL, NETINTEL_SECRET_KEY',
    default: 'the local stack and its dev key',
    meaning:
      'The API and the secret key to use (`--url`, `--key`); the dev key is only ever sent to a local address.',
    readBy: '`npm run jobs`, the client examples',
  },
  {
    name: 'USAGE_PLAN_ID_<PLAN>',
    default: 'from `--outputs`',
    meaning: "Each plan's usage plan (outputs `UsagePlanIdFree`, …) when managing accounts in AWS.",
    readBy: '`npm run admin`',
  },
  {
    name: 'AWS_REGION',
    default: 'from `--outputs`',
    meaning:
      "The region of the stack managed with `--outputs`: when unset, the stack's own, read from its outputs (`RestApiUrl`, the queue URLs).",
    readBy: '`npm run admin`',
  },
  {
    name: 'SHARED_DATA_DIR',
    default: 'the data snapshots beside the checkout',
    meaning:
      'A folder of snapshots of the upstream files (GeoNames, security lists) the data build and refresh read.',
    readBy: '`npm run build:data`, `npm run data:refresh`, tests',
  },
  {
    name: 'NETINTEL_CRASH_AT',
    default: 'unset',
    meaning: `Tests: the process kills itself (SIGKILL) when a list-job creation reaches that point (${CRASH_POINTS.map((p) => `\`${p}\``).join(', ')}); with \`WORKERS\` above 1, the worker that serves it.`,
    readBy: '`npm start`',
  },
  {
    name: 'PROF_DIR',
    default: 'unset',
    meaning: "Writes each server process's V8 CPU profile there.",
    readBy: '`npm run bench -- throughput`',
  },
  {
    name: 'CHROMIUM_PATH',
    default: '`/usr/bin/chromium`',
    meaning:
      'The browser of the Chromium tests and the dashboard benchmark (left out, and said so, without it).',
    readBy: 'tests, `npm run bench -- dashboard`',
  },
];
