import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Account, KeyRecord } from '../functions/lib/accounts/account.js';
import { newKeyId } from '../functions/lib/accounts/api-key.js';
import { emailRulesOf } from '../functions/lib/accounts/email-rules-document.js';
import {
  GeofeedRefusedError,
  GeofeedTooLargeError,
  LiveKeyLimitError,
  UnknownKeyError,
} from '../functions/lib/accounts/errors.js';
import { createWithinLimit, revokeFreeingSlot } from '../functions/lib/accounts/live-keys.js';
import { PLANS } from '../functions/lib/accounts/plans.js';
import {
  deleteGeofeed,
  type RuleAuditLog,
  setEmailRules,
  setGeofeed,
  setTravel,
} from '../functions/lib/accounts/rule-changes.js';
import { emailRulesView, geofeedView, travelView } from '../functions/lib/accounts/rules-views.js';
import {
  assignUsagePlanKey,
  syncUsagePlanKeys,
  type UsagePlanKeys,
} from '../functions/lib/accounts/usage-plan-keys.js';
import { UnknownAccountError, UnknownPlanError } from '../functions/lib/aws/account-store.js';
import { LocalUsagePlanKeys } from '../functions/lib/aws/local-usage-plan-keys.js';
import { MemberOfAnotherAccountError, UnknownMemberError } from '../functions/lib/aws/member-store.js';
import { usagePlanIds, WEBHOOK_QUEUE } from '../functions/lib/aws/resources.js';
import {
  accountStore,
  domainDeps,
  memberStore,
  rulesStore,
  usageCounter,
} from '../functions/lib/aws/services.js';
import { announceDeps } from '../functions/lib/aws/webhook-services.js';
import { destinationPolicy, webhookStore } from '../functions/lib/aws/webhook-store-services.js';
import type { Clock } from '../functions/lib/clock.js';
import { type DomainRefusal, DomainRefusedError } from '../functions/lib/custom-hostnames/errors.js';
import {
  addHostname,
  listHostnames,
  removeHostname,
  verifyHostname,
  viewOf,
} from '../functions/lib/custom-hostnames/lifecycle.js';
import { DashboardInputError } from '../functions/lib/dashboard/dashboard-errors.js';
import { allowedOrigins } from '../functions/lib/dashboard/key-rules.js';
import { memberEmail } from '../functions/lib/dashboard/member-email.js';
import { EmailRulesSchema } from '../functions/lib/email/rules.js';
import { parseJsonBytes } from '../functions/lib/http/body.js';
import { HttpError } from '../functions/lib/http/errors.js';
import { USAGE_DAYS_MAX, usageReport } from '../functions/lib/limits/usage-report.js';
import { NetintelLogger } from '../functions/lib/observability.js';
import {
  TRAVEL_SETTINGS_BOUNDS,
  TravelSettingsSchema,
  travelSettingsOf,
} from '../functions/lib/risk/travel-settings.js';
import { environmentConfig } from '../functions/lib/runtime/config.js';
import { createServices, type Services } from '../functions/lib/runtime/services.js';
import { announce, redeliver } from '../functions/lib/webhooks/announce.js';
import { endpointView } from '../functions/lib/webhooks/endpoints.js';
import {
  EndpointNotFoundError,
  EventNotFoundError,
  TooManyEndpointsError,
  WebhookUrlRefusedError,
} from '../functions/lib/webhooks/errors.js';
import { testEvent } from '../functions/lib/webhooks/events.js';
import {
  changeEndpoint,
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
} from '../functions/lib/webhooks/manage.js';
import { DeliveriesQuery, EndpointCreateBody, RedeliverBody } from '../functions/lib/webhooks/schema.js';
import { environmentFromOutputs, OUTPUTS } from '../infra/outputs.js';
import { CliError } from './cli/cli-error.js';
import { type CommandLine, readCommandLine, wholeNumber } from './cli/command-line.js';
import { printableJson, printingSafely } from './cli/printable.js';
import { type Emulators, type Endpoints, startEmulators, useEndpoints } from './local/emulators.js';

// `npm run admin -- <command>`: accounts, keys and usage, against the local stack or AWS.
// runAdmin() is the whole CLI with its arguments and output passed in, so the tests run it in
// this process; scripts/admin.ts is the command-line entry.
//   local: reads DATA_DIR/endpoints.json written by a running `npm start`; if none is running,
//          opens the DATA_DIR stores itself.
//   AWS:   --outputs cdk-outputs.json (from `cdk deploy --outputs-file`) or TABLE_* variables,
//          with the usual AWS credentials. Custom hostnames also read the CustomHostname* outputs
//          (or CUSTOM_HOSTNAME_* variables) and BASE_DOMAIN / --base-domain; accounts' own
//          usage-plan keys the UsagePlanId* outputs (or USAGE_PLAN_ID_* variables).

/** A travel setting's bounds for the usage, `100-20000`. */
const boundsOf = (setting: keyof typeof TRAVEL_SETTINGS_BOUNDS) =>
  `${TRAVEL_SETTINGS_BOUNDS[setting].min}-${TRAVEL_SETTINGS_BOUNDS[setting].max}`;

/** Every command with its usage lines; `--help` prints one command's, one area's or all. */
const COMMANDS: Record<string, string[]> = {
  'account create': [
    'account create --plan free|starter|pro|business [--email E] [--per-minute N] [--monthly-cap N]',
    '               [--security true|false] [--custom-hostname true|false]',
  ],
  'account update': [
    'account update --account ID [--per-minute N] [--monthly-cap N] [--security true|false]',
    '               [--custom-hostname true|false]   changes what is given; in force within KEY_CACHE_SECONDS',
  ],
  'account list': ['account list                 every account, oldest first'],
  'account show': ['account show --account ID    the account, its limits and its keys'],
  'account sync-keys': [
    'account sync-keys            AWS: an API Gateway usage-plan key for every account without its own',
  ],
  'key create': [
    'key create --account ID --type publishable --origin URL [--origin URL ...]',
    'key create --account ID --type secret',
    '                             the key is printed once: only its hash is stored',
    '                             --test: a test key (ni_test_…): fixed answers, never billed (docs/test-mode.md)',
  ],
  'key list': [
    "key list --account ID        the account's keys: ids, types, origins, revoked (never the keys)",
  ],
  'key revoke': ['key revoke --key-id ID'],
  'usage show': [
    'usage show --account ID [--days N]',
    `                             this minute, this month, per kind; with --days the last N days (1-${USAGE_DAYS_MAX})`,
  ],
  'member add': ["member add --account ID --email E    E may sign in to the account's dashboard"],
  'member list': ['member list --account ID'],
  'member remove': ['member remove --account ID --email E   ends their sessions at once'],
  'domain add': ['domain add --account ID --hostname HOST [--base-domain D]'],
  'domain verify': ['domain verify --hostname HOST'],
  'domain list': ['domain list --account ID'],
  'domain remove': ['domain remove --hostname HOST'],
  'rules show': [
    "rules show --account ID       the account's own rules: travel settings, email rules, geofeed",
  ],
  'rules travel': [
    'rules travel --account ID [--max-speed-kmh N] [--min-distance-km N] [--min-seconds N]',
    '                             replaces the travel settings (an option left out: its default)',
    `                             whole numbers: ${boundsOf('maxSpeedKmh')} km/h, ${boundsOf('minDistanceKm')} km, ${boundsOf('minSeconds')} s`,
  ],
  'rules email': ['rules email --account ID --file RULES.json   replaces the email rules (docs/rules.md)'],
  'rules geofeed': [
    'rules geofeed --account ID --file FEED.csv   replaces the private geofeed (RFC 8805 CSV)',
    'rules geofeed --account ID --delete          removes it (not with --file)',
  ],
  'webhooks list': ["webhooks list ACCOUNT        the account's webhook endpoints (never their secrets)"],
  'webhooks create': [
    'webhooks create ACCOUNT --url URL --events job.completed,job.failed[,usage.threshold] [--description TEXT]',
    '                             the signing secret (whsec_…) is printed once',
  ],
  'webhooks delete': ['webhooks delete ACCOUNT ENDPOINT   its deliveries not yet made are cancelled'],
  'webhooks deliveries': [
    'webhooks deliveries ACCOUNT ENDPOINT [--limit N] [--cursor C]   its attempts, newest first',
  ],
  'webhooks test': ['webhooks test ACCOUNT ENDPOINT     sends it a webhook.test event'],
  'webhooks redeliver': ['webhooks redeliver ACCOUNT ENDPOINT EVENT   sends it the event (evt_…) again'],
  'webhooks enable': [
    'webhooks enable ACCOUNT ENDPOINT   starts a disabled endpoint again (then redeliver what it missed)',
  ],
};

const OPTIONS_HELP =
  'options: --data-dir DIR (default ./.data)  --outputs FILE (AWS stack outputs)  --json  --help';

function usageOf(names: string[]): string {
  return `usage: npm run admin -- <command> [options] [--json]
${names.flatMap((name) => COMMANDS[name]!.map((line) => `  ${line}`)).join('\n')}
${OPTIONS_HELP}`;
}

const USAGE = usageOf(Object.keys(COMMANDS));

/** The command the arguments name ("key create"), or just their area ("key") when that is all. */
function commandOf(positionals: string[]): string | undefined {
  const [area, verb] = positionals;
  if (area && verb && COMMANDS[`${area} ${verb}`]) return `${area} ${verb}`;
  if (area && Object.keys(COMMANDS).some((name) => name.startsWith(`${area} `))) return area;
  return undefined;
}

/** `--help` for what the arguments name: one command, the commands of an area, or all. */
function helpFor(positionals: string[]): string {
  const named = commandOf(positionals);
  if (!named) return USAGE;
  return usageOf(Object.keys(COMMANDS).filter((name) => name === named || name.startsWith(`${named} `)));
}

const ACCOUNTS_HINT = 'npm run admin -- account list   shows the accounts';
const HOSTNAME_HINT =
  '--hostname takes a name under a domain the customer registered, such as api.customer-shop.com';
const HOSTNAMES_HINT = "npm run admin -- domain list --account ID   shows an account's hostnames";

/** What to do after each refusal of `domain add|verify|remove`. */
const DOMAIN_HINTS: Record<DomainRefusal, string> = {
  unknown_account: ACCOUNTS_HINT,
  plan_not_eligible:
    'npm run admin -- account update --account ID --custom-hostname true   gives the account custom hostnames',
  invalid_hostname: HOSTNAME_HINT,
  not_public: HOSTNAME_HINT,
  zone_apex: HOSTNAME_HINT,
  base_domain: HOSTNAME_HINT,
  hostname_claimed:
    'a hostname serves one account: its holder keeps it while its claim is active or within its 72 hours to show DNS; a failed or lapsed claim goes to the next account that adds the name',
  too_many_hostnames: `${HOSTNAMES_HINT} (domain remove --hostname HOST frees one)`,
  unknown_hostname: HOSTNAMES_HINT,
};

/**
 * The line that says what to do after a refused command (every refusal has one): the command that
 * lists what was not found, what to pass instead, or the command's usage.
 */
function hintFor(err: unknown, positionals: string[]): string | undefined {
  if (err instanceof UnknownAccountError) return ACCOUNTS_HINT;
  if (err instanceof UnknownKeyError)
    return "npm run admin -- key list --account ID   shows an account's keys";
  if (err instanceof LiveKeyLimitError)
    return "npm run admin -- key list --account ID   shows an account's keys (key revoke --key-id ID frees a slot)";
  if (err instanceof UnknownMemberError)
    return "npm run admin -- member list --account ID   shows an account's members";
  if (err instanceof MemberOfAnotherAccountError)
    return 'an address signs in to one account: `member remove` it from the other account first';
  if (err instanceof DomainRefusedError) return DOMAIN_HINTS[err.code];
  if (err instanceof EndpointNotFoundError || err instanceof TooManyEndpointsError)
    return "npm run admin -- webhooks list ACCOUNT   shows an account's endpoints";
  if (err instanceof EventNotFoundError)
    return "npm run admin -- webhooks deliveries ACCOUNT ENDPOINT   shows the endpoint's events";
  if (err instanceof WebhookUrlRefusedError)
    return "--url takes the receiver's public https address, such as https://shop.example/hooks";
  // The key's origins (dashboard/key-rules.ts), the one input of the CLI this error refuses.
  if (err instanceof DashboardInputError && commandOf(positionals) === 'key create')
    return "--origin takes each site the key is used from: --origin https://shop.example.com, --origin 'http://localhost:*'";
  if (err instanceof CliError && err.hint) return err.hint;
  if (!KNOWN_ERRORS.some((type) => err instanceof type)) return undefined;
  const named = commandOf(positionals);
  return `npm run admin -- ${named ? `${named} ` : ''}--help`;
}

/** What `key create` says beside the key: it cannot be shown again. */
export const KEY_SHOWN_ONCE =
  'This key is shown once: store it now. Only its hash is kept, so it cannot be shown again (revoke it and create another if it is lost).';

/** What `webhooks create` says beside the secret: it cannot be shown again. */
export const WEBHOOK_SECRET_SHOWN_ONCE =
  'This signing secret is shown once: give it to the receiver now. It cannot be shown again (POST /v1/webhooks/{id}/rotate-secret makes another).';

const OPTIONS = {
  plan: { type: 'string' },
  email: { type: 'string' },
  'per-minute': { type: 'string' },
  'monthly-cap': { type: 'string' },
  security: { type: 'string' },
  'custom-hostname': { type: 'string' },
  account: { type: 'string' },
  type: { type: 'string' },
  test: { type: 'boolean', default: false },
  origin: { type: 'string', multiple: true },
  'key-id': { type: 'string' },
  hostname: { type: 'string' },
  'base-domain': { type: 'string' },
  days: { type: 'string' },
  file: { type: 'string' },
  delete: { type: 'boolean', default: false },
  'max-speed-kmh': { type: 'string' },
  'min-distance-km': { type: 'string' },
  'min-seconds': { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  description: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  'data-dir': { type: 'string' },
  outputs: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const;

type Values = CommandLine<typeof OPTIONS>['values'];

/** What every command takes: where the stack is, the output's form and the usage. */
const EVERY_COMMAND_TAKES = ['data-dir', 'outputs', 'json', 'help'];

/** What every command of an area takes: the domain commands' checks use the stack's own domain. */
const AREA_TAKES: Record<string, string[]> = { domain: ['base-domain'] };

/** The options a command takes: those its usage lines name, its area's and every command's. */
function optionsOf(name: string): Set<string> {
  const named = COMMANDS[name]!.join(' ').match(/--[a-z][a-z-]*/g) ?? [];
  return new Set([
    ...named.map((option) => option.slice(2)),
    ...(AREA_TAKES[name.split(' ')[0]!] ?? []),
    ...EVERY_COMMAND_TAKES,
  ]);
}

/**
 * Refuses an option given to a command that does not take it (`rules email --delete` replaced the
 * email rules, --delete dropped), before anything is read or changed. The hint names the command
 * that takes it when one alone does (or the area whose commands all do), else this command's usage.
 */
function refuseOptionsNotTaken(name: string, values: Values): void {
  const takes = optionsOf(name);
  for (const [option, value] of Object.entries(values)) {
    // A boolean option not given reads as its default, false.
    if (value === undefined || value === false || takes.has(option)) continue;
    const takers = Object.keys(COMMANDS).filter((other) => optionsOf(other).has(option));
    const area = takers[0]?.split(' ')[0];
    const areaCommands = Object.keys(COMMANDS).filter((other) => other.startsWith(`${area} `));
    const goesWith =
      takers.length === 1
        ? takers[0]
        : takers.length === areaCommands.length && takers.every((t) => areaCommands.includes(t))
          ? area
          : undefined;
    // The webhooks commands take the account as their first argument, every other command as --account.
    const usage = COMMANDS[name]?.[0]?.split(/\s{2,}/)[0] ?? '';
    if (option === 'account' && usage.startsWith(`${name} ACCOUNT`)) {
      throw new CliError(`${name} does not take --account`, {
        hint: `the account is its first argument: npm run admin -- ${usage.replace('ACCOUNT', String(value))}`,
      });
    }
    throw new CliError(
      `${name} does not take --${option}`,
      goesWith === undefined
        ? {}
        : {
            hint: `--${option} goes with ${takers.length === 1 ? goesWith : `the ${goesWith} commands`}: npm run admin -- ${goesWith} --help`,
          },
    );
  }
}

/** Where the CLI writes (stdout and stderr in the command, buffers in the tests), and its time. */
export interface AdminIo {
  out(text: string): void;
  err(text: string): void;
  /** The time of its services: the system's, or a test stack's moved clock. */
  clock?: Clock;
}

function bool(name: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw !== 'true' && raw !== 'false') throw new CliError(`--${name} must be true or false`);
  return raw === 'true';
}

function required(name: string, value: string | undefined): string {
  if (!value) throw new CliError(`--${name} is required`);
  return value;
}

/** How the CLI reaches the stores: a deployed stack, a running local stack, or its own emulators. */
interface Connection {
  aws: boolean;
  emulators?: Emulators;
}

/** An AWS region's name, as in `eu-west-1` or `us-gov-west-1`. */
const REGION = '([a-z]{2}(?:-[a-z]+)+-\\d+)';

/**
 * The region of the stack whose outputs these are: in the host of its API (`RestApiUrl`,
 * `…execute-api.<region>.amazonaws.com`) or of its queues (`sqs.<region>.amazonaws.com`), or in an
 * ARN (`AlarmTopicArn`).
 */
export function regionOfOutputs(outputs: Record<string, string>): string | undefined {
  const patterns = [
    new RegExp(`^https://(?:[^/]+\\.execute-api|sqs)\\.${REGION}\\.amazonaws\\.com(?:\\.cn)?(?:/|$)`),
    new RegExp(`^arn:aws[a-z-]*:[a-z0-9-]+:${REGION}:`),
  ];
  for (const value of Object.values(outputs)) {
    for (const pattern of patterns) {
      const region = typeof value === 'string' ? pattern.exec(value)?.[1] : undefined;
      if (region) return region;
    }
  }
  return undefined;
}

/**
 * The addresses a running `npm start` wrote to `file` (it writes them again at each start), or the
 * refusal that names the file and the way out.
 */
async function localEndpoints(file: string): Promise<Endpoints> {
  const hint =
    'restart `npm start`: it writes the file again as it starts (with none running, delete the file)';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError(`${file}: cannot read it (${reason})`, { hint });
  }
  let endpoints: unknown;
  try {
    endpoints = JSON.parse(text);
  } catch {
    endpoints = undefined;
  }
  const fields = ['dynamodb', 's3', 'sqs', 'queueUrl', 'region'] as const;
  const record: Record<string, unknown> =
    typeof endpoints === 'object' && endpoints !== null ? (endpoints as Record<string, unknown>) : {};
  if (fields.some((field) => typeof record[field] !== 'string')) {
    throw new CliError(`${file} is damaged: it is not the addresses \`npm start\` writes there`, { hint });
  }
  return record as unknown as Endpoints;
}

async function connect(values: Values): Promise<Connection> {
  if (values.outputs) {
    const outputsHint = 'write it with `npx cdk deploy --outputs-file cdk-outputs.json`';
    let outputs: Record<string, Record<string, string>>;
    try {
      outputs = JSON.parse(await readFile(values.outputs, 'utf8'));
    } catch (error) {
      const reason =
        error instanceof SyntaxError ? 'not JSON' : ((error as NodeJS.ErrnoException).code ?? 'unreadable');
      throw new CliError(`--outputs ${values.outputs}: cannot read the stack outputs (${reason})`, {
        hint: outputsHint,
      });
    }
    const stack = Object.values(outputs ?? {})[0] ?? {};
    let env: Record<string, string>;
    try {
      env = environmentFromOutputs(stack);
    } catch (error) {
      throw new CliError(`--outputs ${values.outputs}: ${(error as Error).message}`, { hint: outputsHint });
    }
    for (const [name, value] of Object.entries(env)) process.env[name] = value;
    // The stack's tables are in its own region: it is taken from the outputs unless AWS_REGION names
    // one (the SDK, without AWS_REGION or a profile's region, refused with "Region is missing").
    const region = regionOfOutputs(stack);
    if (!process.env.AWS_REGION && region) process.env.AWS_REGION = region;
    return { aws: true };
  }
  if (process.env.TABLE_ACCOUNTS) return { aws: true };
  const dataDir = resolve(values['data-dir'] ?? process.env.DATA_DIR ?? '.data');
  const file = join(dataDir, 'endpoints.json');
  if (existsSync(file)) {
    const endpoints = await localEndpoints(file);
    const alive = await fetch(endpoints.dynamodb, { method: 'POST' }).then(
      () => true,
      () => false,
    );
    if (alive) {
      useEndpoints(endpoints);
      return { aws: false };
    }
  }
  // No local stack running: open the stores under DATA_DIR directly, when they are there (a
  // mistyped DATA_DIR would otherwise get a new empty store, and the command would act on nothing).
  if (!existsSync(dataDir)) {
    throw new CliError(`no local data at ${dataDir}`, {
      hint: '`npm start` creates it: pass the DATA_DIR it used (--data-dir DIR), or start it first',
    });
  }
  const emulators = await startEmulators(dataDir);
  useEndpoints(emulators.endpoints);
  return { aws: false, emulators };
}

/** `domain add|verify|list|remove`: custom hostnames (docs/custom-hostnames.md). */
async function domain(
  services: Services,
  values: Values,
  positionals: string[],
  aws: boolean,
): Promise<unknown> {
  const verb = positionals[1];
  if (aws && !process.env.CUSTOM_HOSTNAME_DISTRIBUTION_ID) {
    throw new CliError(
      'this stack was deployed without custom hostnames (deploy with -c customHostnames=true), or CUSTOM_HOSTNAME_* is not set',
    );
  }
  const deps = await domainDeps(services, { baseDomain: values['base-domain'] });
  try {
    if (verb === 'add') {
      const record = await addHostname(
        required('account', values.account),
        required('hostname', values.hostname),
        deps,
      );
      const { hostname, status, records } = viewOf(record);
      return { hostname, status, records };
    }
    if (verb === 'verify') {
      const { record, transitions } = await verifyHostname(required('hostname', values.hostname), deps);
      if (!record) return { hostname: values.hostname, status: 'removed', transitions };
      return { ...viewOf(record), transitions };
    }
    if (verb === 'list') {
      const accountId = required('account', values.account);
      if (!(await accountStore(services).getAccount(accountId))) {
        throw new UnknownAccountError(`unknown account "${accountId}"`);
      }
      return { accountId, hostnames: await listHostnames(accountId, deps) };
    }
    if (verb === 'remove') {
      const hostname = required('hostname', values.hostname);
      return { hostname, status: await removeHostname(hostname, deps) };
    }
  } finally {
    (deps.resolver as { close?: () => void }).close?.();
  }
  throw new CliError(`unknown command "${positionals.join(' ')}"`);
}

/** `--email` as a member's address (memberEmail), or the refusal that says why not. */
function memberEmailOrRefuse(raw: string): string {
  const email = memberEmail(raw);
  if (!email) throw new CliError(`"${raw}" is not an e-mail address`);
  return email;
}

/** `member add|list|remove`: who may sign in to an account's dashboard. */
async function member(services: Services, values: Values, verb: string | undefined): Promise<unknown> {
  const accountId = required('account', values.account);
  if (!(await accountStore(services).getAccount(accountId)))
    throw new UnknownAccountError(`unknown account "${accountId}"`);
  const members = memberStore(services);
  if (verb === 'list') return { accountId, members: await members.membersOf(accountId) };
  const email = memberEmailOrRefuse(required('email', values.email));
  if (verb === 'add') return members.addMember(accountId, email, services.now());
  if (verb === 'remove') {
    await members.removeMember(accountId, email);
    return { accountId, email, removed: true };
  }
  throw new CliError(`unknown command "member ${verb ?? ''}"`);
}

/** The bytes of a `--file`; one that cannot be read is input to correct, named with the reason. */
async function inputFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new CliError(`${file}: cannot read it (${reason})`);
  }
}

/**
 * Where the CLI logs a change of an account's rules: the `account rules changed` line the API's
 * routes log (accounts/rule-changes.ts), the same Powertools JSON, on stderr so that stdout stays the
 * answer. At INFO whatever POWERTOOLS_LOG_LEVEL says: it is the change's audit line, not chatter.
 */
function auditLog(io: AdminIo): RuleAuditLog {
  return new NetintelLogger({ serviceName: 'netintel', logLevel: 'INFO', output: (line) => io.err(line) });
}

/**
 * `rules show|travel|email|geofeed`: an account's own rules, changed as its API would change them,
 * each change logged to `log` as the API logs it.
 */
async function rules(
  services: Services,
  values: Values,
  verb: string | undefined,
  log: RuleAuditLog,
): Promise<unknown> {
  const accountId = required('account', values.account);
  if (!(await accountStore(services).getAccount(accountId)))
    throw new UnknownAccountError(`unknown account "${accountId}"`);
  const store = rulesStore(services);
  const change = { at: services.now().toISOString(), by: 'admin' };
  const show = async () => {
    const meta = await store.meta(accountId);
    const email = await store.readDocument(accountId, 'emailRules');
    return {
      accountId,
      travel: travelView(meta),
      emailRules: emailRulesView(email && emailRulesOf(email.body), email?.meta),
      geofeed: meta.geofeed ? geofeedView(meta.geofeed) : null,
    };
  };
  if (verb === 'show') return show();
  if (verb === 'travel') {
    // Whole numbers within the API's bounds, written as digits (Number() read '' as 0 and 0x10 as 16).
    const { maxSpeedKmh, minDistanceKm, minSeconds } = TRAVEL_SETTINGS_BOUNDS;
    const parsed = TravelSettingsSchema.safeParse({
      maxSpeedKmh: wholeNumber('max-speed-kmh', values['max-speed-kmh'], maxSpeedKmh),
      minDistanceKm: wholeNumber('min-distance-km', values['min-distance-km'], minDistanceKm),
      minSeconds: wholeNumber('min-seconds', values['min-seconds'], minSeconds),
    });
    if (!parsed.success) throw new CliError(zodProblems(parsed.error));
    await setTravel(store, accountId, travelSettingsOf(parsed.data), change, log);
  } else if (verb === 'email') {
    const file = required('file', values.file);
    const bytes = await inputFile(file);
    let document: unknown;
    try {
      // Read as PUT /v1/account/email-rules reads its body (http/body.ts): UTF-8 only, a leading
      // byte order mark ignored, at most JSON_BODY_LIMIT_BYTES.
      document = parseJsonBytes(bytes);
    } catch (err) {
      if (err instanceof HttpError) throw new CliError(`${file}: ${err.message}`);
      throw err;
    }
    const parsed = EmailRulesSchema.safeParse(document);
    if (!parsed.success) throw new CliError(`${file}: ${zodProblems(parsed.error)}`);
    await setEmailRules(store, accountId, parsed.data, change, log);
  } else if (verb === 'geofeed') {
    // Both named is a mistake to correct, not a choice to make: either could be the one meant.
    if (values.delete && values.file !== undefined) {
      throw new CliError(
        '--file and --delete do not go together: --file replaces the geofeed, --delete removes it',
      );
    }
    if (values.delete) await deleteGeofeed(store, accountId, change, log);
    else {
      const file = required('file', values.file);
      try {
        // The bytes, as PUT /v1/account/geofeed gets them: setGeofeed refuses what is not UTF-8.
        await setGeofeed(store, accountId, await inputFile(file), change, log);
      } catch (err) {
        if (err instanceof GeofeedRefusedError) {
          throw new CliError(
            `${file}: ${err.message}\n${err.lines.map((l) => `  line ${l.line}: ${l.reason}`).join('\n')}`,
          );
        }
        if (err instanceof GeofeedTooLargeError) throw new CliError(`${file}: ${err.message}`);
        throw err;
      }
    }
  } else {
    throw new CliError(`unknown command "rules ${verb ?? ''}"`);
  }
  return show();
}

/** The positional arguments of each `webhooks` command. */
const WEBHOOK_ARGS: Record<string, string> = {
  list: 'ACCOUNT',
  create: 'ACCOUNT',
  delete: 'ACCOUNT ENDPOINT',
  deliveries: 'ACCOUNT ENDPOINT',
  test: 'ACCOUNT ENDPOINT',
  redeliver: 'ACCOUNT ENDPOINT EVENT',
  enable: 'ACCOUNT ENDPOINT',
};

/** The positional argument `index` of `webhooks <verb> ACCOUNT [ENDPOINT [EVENT]]`, named `name` in the refusal. */
function argument(positionals: string[], index: number, name: string): string {
  const value = positionals[index];
  if (!value)
    throw new CliError(
      `${name} is required (${positionals.slice(0, 2).join(' ')} ${WEBHOOK_ARGS[positionals[1] ?? '']})`,
    );
  return value;
}

/**
 * `webhooks list|create|delete|deliveries|test|redeliver|enable`: an account's webhook endpoints
 * (docs/webhooks.md), changed and sent to as its API would (webhooks/manage.ts, announce.ts).
 */
async function webhooks(services: Services, values: Values, positionals: string[]): Promise<unknown> {
  const verb = positionals[1] ?? '';
  const expected = (WEBHOOK_ARGS[verb] ?? '').split(' ').length;
  if (positionals.length > 2 + expected) {
    throw new CliError(
      `unexpected argument "${positionals[2 + expected]}" (webhooks ${verb} ${WEBHOOK_ARGS[verb]})`,
    );
  }
  const accountId = argument(positionals, 2, 'ACCOUNT');
  if (!(await accountStore(services).getAccount(accountId)))
    throw new UnknownAccountError(`unknown account "${accountId}"`);
  const store = webhookStore(services);
  const now = services.now();
  if (verb === 'list') {
    const set = await store.endpointSet(accountId);
    return { accountId, endpoints: set.endpoints.map((e) => endpointView(e, now)) };
  }
  if (verb === 'create') {
    const parsed = EndpointCreateBody.safeParse({
      url: required('url', values.url),
      events: required('events', values.events)
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== ''),
      ...(values.description === undefined ? {} : { description: values.description }),
    });
    if (!parsed.success) throw new CliError(zodProblems(parsed.error));
    const endpoint = await createEndpoint(store, destinationPolicy(services), accountId, parsed.data, now);
    return { accountId, ...endpointView(endpoint, now), secret: endpoint.secrets[0]!.secret };
  }
  const endpointId = argument(positionals, 3, 'ENDPOINT');
  if (verb === 'delete') {
    await deleteEndpoint(store, accountId, endpointId);
    return { accountId, endpointId, deleted: true };
  }
  if (verb === 'enable') {
    const endpoint = await changeEndpoint(
      store,
      destinationPolicy(services),
      accountId,
      endpointId,
      { enabled: true },
      now,
    );
    return { accountId, ...endpointView(endpoint, now) };
  }
  const endpoint = await getEndpoint(store, accountId, endpointId);
  if (verb === 'deliveries') {
    const limit = wholeNumber('limit', values.limit, { min: 1, max: 100 }) ?? 20;
    // The cursor checked as GET /v1/webhooks/{id}/deliveries checks it.
    if (values.cursor !== undefined && !DeliveriesQuery.safeParse({ cursor: values.cursor }).success)
      throw new CliError('--cursor: use the nextCursor of the previous page');
    const page = await store.attempts(accountId, endpoint.id, {
      limit,
      ...(values.cursor ? { cursor: values.cursor } : {}),
    });
    return { accountId, endpointId: endpoint.id, deliveries: page.items, nextCursor: page.next };
  }
  // test and redeliver queue deliveries: the queue's URL comes from endpoints.json locally, from the
  // stack outputs in AWS (absent from stacks deployed before webhooks).
  if (!services.config[WEBHOOK_QUEUE.envVar]) {
    throw new CliError(
      `the stack outputs lack ${OUTPUTS.webhooksQueueUrl} (or ${WEBHOOK_QUEUE.envVar} is not set): deploy this version of the stack and pass its new --outputs file (locally, restart \`npm start\`)`,
    );
  }
  if (verb === 'test') {
    const event = testEvent(accountId, endpoint.id, now);
    await announce(announceDeps(services), event, { endpointId: endpoint.id });
    return { eventId: event.id, endpointId: endpoint.id, queued: true };
  }
  if (verb === 'redeliver') {
    const eventId = argument(positionals, 4, 'EVENT');
    const body = RedeliverBody.safeParse({ eventId });
    if (!body.success) throw new CliError(`"${eventId}" is not an event id (evt_…)`);
    if (!(await store.getEvent(accountId, eventId))) throw new EventNotFoundError(eventId);
    await redeliver(announceDeps(services), accountId, eventId, endpoint.id);
    return { eventId, endpointId: endpoint.id, queued: true };
  }
  throw new CliError(`unknown command "webhooks ${verb}"`);
}

/** A zod refusal as one line: `path: problem; ...`. */
function zodProblems(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || 'document'}: ${i.message}`).join('; ');
}

/** A failure after part of the work was done: the message says what stands and what to run. */
class PartialFailureError extends Error {}

/**
 * Where accounts get their own usage-plan key: the stack's usage plans in AWS (the ids from the
 * UsagePlanId* outputs), nowhere locally (the local gateway applies no usage plans).
 */
async function usagePlanKeys(aws: boolean): Promise<UsagePlanKeys> {
  if (!aws) return new LocalUsagePlanKeys();
  const ids = usagePlanIds(
    PLANS.map((p) => p.id),
    process.env,
  );
  const missing = PLANS.filter((p) => !ids[p.id]).map((p) => OUTPUTS.usagePlanId(p.id));
  if (missing.length > 0) {
    throw new CliError(
      `the stack outputs lack ${missing.join(', ')} (or USAGE_PLAN_ID_* is not set): deploy this version of the stack and pass its new --outputs file`,
    );
  }
  const { ApiGatewayUsagePlanKeys } = await import('../functions/lib/aws/api-gateway-usage-plan-keys.js');
  return new ApiGatewayUsagePlanKeys(ids);
}

/** An account as the admin sees it: its usage-plan key by id only (the value is a credential). */
function accountView(account: Account) {
  const { usagePlanKey, ...rest } = account;
  return { ...rest, ...(usagePlanKey ? { usagePlanKeyId: usagePlanKey.id } : {}) };
}

/** An account's keys, oldest first, without their hashes. */
async function keysOf(services: Services, accountId: string): Promise<Omit<KeyRecord, 'keyHash'>[]> {
  const keys: Omit<KeyRecord, 'keyHash'>[] = [];
  for await (const { keyHash: _, ...key } of accountStore(services).keysOf(accountId)) keys.push(key);
  return keys.sort((x, y) => x.createdAt.localeCompare(y.createdAt));
}

async function command(
  services: Services,
  values: Values,
  positionals: string[],
  aws: boolean,
  io: AdminIo,
): Promise<unknown> {
  const [area, verb] = positionals;
  if (area === 'domain') return domain(services, values, positionals, aws);
  const store = accountStore(services);
  if (area === 'account' && verb === 'sync-keys') {
    const report = await syncUsagePlanKeys(await usagePlanKeys(aws), store);
    if (report.failed.length > 0) {
      throw new PartialFailureError(
        `${report.failed.length} account(s) got no usage-plan key (they keep their plan's shared key; run again): ${JSON.stringify(report)}`,
      );
    }
    return report;
  }
  if (area === 'account' && verb === 'create') {
    const plan = required('plan', values.plan);
    if (!PLANS.some((p) => p.id === plan))
      throw new CliError(`unknown plan "${plan}" (${PLANS.map((p) => p.id).join(', ')})`);
    const overrides = {
      email: values.email ?? null,
      perMinute: wholeNumber('per-minute', values['per-minute'], { min: 1 }),
      monthlyCap: wholeNumber('monthly-cap', values['monthly-cap'], { min: 1 }),
      includesSecurity: bool('security', values.security),
      customHostname: bool('custom-hostname', values['custom-hostname']),
    };
    // Resolved before the account is made: a stack without usage-plan outputs refuses here.
    const keys = await usagePlanKeys(aws);
    const firstMember = values.email === undefined ? undefined : memberEmailOrRefuse(values.email);
    const account = await store.createAccount(plan, overrides);
    if (firstMember) await memberStore(services).addMember(account.accountId, firstMember, services.now());
    let assignment: Awaited<ReturnType<typeof assignUsagePlanKey>>;
    try {
      assignment = await assignUsagePlanKey(account, keys, store);
    } catch (err) {
      throw new PartialFailureError(
        `account ${account.accountId} was created, but its usage-plan key was not (${(err as Error).message}); it shares its plan's throttle until \`account sync-keys\` gives it one`,
      );
    }
    return {
      accountId: account.accountId,
      plan: account.plan,
      perMinute: account.perMinute,
      monthlyCap: account.monthlyCap,
      includesSecurity: account.includesSecurity,
      customHostname: account.customHostname,
      ...(assignment.status === 'assigned' ? { usagePlanKeyId: assignment.key.id } : {}),
    };
  }
  if (area === 'key' && verb === 'create') {
    const account = required('account', values.account);
    const type = required('type', values.type);
    const mode = values.test ? 'test' : 'live';
    if (type === 'secret') {
      if (values.origin?.length) throw new CliError('secret keys have no origins (they are for backends)');
      const { key, keyId } = await createWithinLimit(store, account, newKeyId(), services.now(), (id) =>
        store.createKey(account, 'secret', [], services.now(), undefined, id, mode),
      );
      return { key, keyId, mode };
    }
    if (type !== 'publishable') throw new CliError('--type must be publishable or secret');
    // The dashboard's rules (dashboard/key-rules.ts): one implementation for both.
    const origins = allowedOrigins(values.origin ?? []);
    // Within the live-key limit, as the dashboard's creates (accounts/live-keys.ts).
    const { key, keyId } = await createWithinLimit(store, account, newKeyId(), services.now(), (id) =>
      store.createKey(account, 'publishable', origins, services.now(), undefined, id, mode),
    );
    return { key, keyId, mode };
  }
  if (area === 'member') return member(services, values, verb);
  if (area === 'rules') return rules(services, values, verb, auditLog(io));
  if (area === 'webhooks') return webhooks(services, values, positionals);
  if (area === 'account' && verb === 'list') {
    const accounts: ReturnType<typeof accountView>[] = [];
    for await (const account of store.accounts()) accounts.push(accountView(account));
    return { accounts: accounts.sort((x, y) => x.createdAt.localeCompare(y.createdAt)) };
  }
  if (area === 'account' && verb === 'update') {
    const accountId = required('account', values.account);
    const changes = {
      perMinute: wholeNumber('per-minute', values['per-minute'], { min: 1 }),
      monthlyCap: wholeNumber('monthly-cap', values['monthly-cap'], { min: 1 }),
      includesSecurity: bool('security', values.security),
      customHostname: bool('custom-hostname', values['custom-hostname']),
    };
    if (Object.values(changes).every((v) => v === undefined))
      throw new CliError('name what to change: --per-minute, --monthly-cap, --security or --custom-hostname');
    const account = await store.updateAccount(accountId, changes);
    if (!account) throw new UnknownAccountError(`unknown account "${accountId}"`);
    return accountView(account);
  }
  if (area === 'account' && verb === 'show') {
    const accountId = required('account', values.account);
    const account = await store.getAccount(accountId);
    if (!account) throw new UnknownAccountError(`unknown account "${accountId}"`);
    return { ...accountView(account), keys: await keysOf(services, accountId) };
  }
  if (area === 'key' && verb === 'list') {
    const accountId = required('account', values.account);
    if (!(await store.getAccount(accountId))) throw new UnknownAccountError(`unknown account "${accountId}"`);
    return { accountId, keys: await keysOf(services, accountId) };
  }
  if (area === 'key' && verb === 'revoke') {
    const keyId = required('key-id', values['key-id']);
    const account = await store.accountOfKey(keyId);
    if (!account) throw new UnknownKeyError(`unknown key id "${keyId}"`);
    await revokeFreeingSlot(store, account, keyId, (id) => store.revokeKey(id));
    return { keyId, revoked: true };
  }
  if (area === 'usage' && verb === 'show') {
    const accountId = required('account', values.account);
    const days = wholeNumber('days', values.days, { min: 1, max: USAGE_DAYS_MAX });
    const account = await store.getAccount(accountId);
    if (!account) throw new UnknownAccountError(`unknown account "${accountId}"`);
    // The figures GET /v1/usage answers the account itself (limits/usage-report.ts).
    return usageReport(usageCounter(services), account, services.now(), { days });
  }
  throw new CliError(`unknown command "${positionals.join(' ')}"`);
}

const KNOWN_ERRORS = [
  CliError,
  UnknownAccountError,
  UnknownKeyError,
  UnknownPlanError,
  DomainRefusedError,
  MemberOfAnotherAccountError,
  UnknownMemberError,
  DashboardInputError,
  LiveKeyLimitError,
  EndpointNotFoundError,
  EventNotFoundError,
  TooManyEndpointsError,
  WebhookUrlRefusedError,
];

/** Runs one admin command; answers its exit code (0 done, 2 refused input, 1 failure). */
export async function runAdmin(args: string[], given: AdminIo): Promise<number> {
  // What it prints holds what accounts stored (key names, origins, webhook URLs, hostnames): any
  // control character in it is escaped, and the JSON escapes DEL and C1 too (printable.ts).
  const io = printingSafely(given);
  const json = args.includes('--json');
  // A refusal is one line and where to look, not the whole usage (`--json`: {"error": ..., "hint": ...}).
  const refuse = (err: unknown, positionals: string[], message = (err as Error).message) => {
    const hint = hintFor(err, positionals);
    if (json) return io.err(printableJson({ error: message, ...(hint ? { hint } : {}) }));
    io.err(`error: ${message}`);
    if (hint) io.err(`hint: ${hint}`);
  };
  let parsed: CommandLine<typeof OPTIONS>;
  try {
    parsed = readCommandLine(args, OPTIONS);
  } catch (err) {
    refuse(
      err,
      args.filter((a) => !a.startsWith('-')),
    );
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(helpFor(positionals));
    return 0;
  }
  if (positionals.length === 0) {
    io.err(USAGE);
    return 2;
  }
  const name = positionals.slice(0, 2).join(' ');
  if (!COMMANDS[name]) {
    refuse(new CliError(`unknown command "${positionals.join(' ')}"`), positionals);
    return 2;
  }
  // Only the webhooks commands take words after their name (checked there); elsewhere an extra
  // word is a mistake (an option without its --), not something to drop.
  if (positionals[0] !== 'webhooks' && positionals.length > 2) {
    refuse(new CliError(`unexpected argument "${positionals[2]}" (${name} takes options only)`), positionals);
    return 2;
  }
  let connection: Connection | undefined;
  try {
    refuseOptionsNotTaken(name, values);
    connection = await connect(values);
    // Built once the endpoints are known (connect), from the environment they are in.
    const services = createServices(environmentConfig(), io.clock ? { clock: io.clock } : {});
    const result = await command(services, values, positionals, connection.aws, io);
    io.out(json ? printableJson(result) : printableJson(result, 2));
    if (!json && positionals[0] === 'key' && positionals[1] === 'create') io.err(KEY_SHOWN_ONCE);
    if (!json && positionals[0] === 'webhooks' && positionals[1] === 'create')
      io.err(WEBHOOK_SECRET_SHOWN_ONCE);
    return 0;
  } catch (err) {
    const known = KNOWN_ERRORS.some((type) => err instanceof type);
    refuse(err, positionals, known ? (err as Error).message : `failed: ${(err as Error).message}`);
    return known ? 2 : 1;
  } finally {
    await connection?.emulators?.stop();
  }
}
