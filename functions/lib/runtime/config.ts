import { BUCKET, JOB_QUEUE, JOB_SWEEP, TABLES, type TableEnvVar, WEBHOOK_QUEUE } from '../aws/resources.js';
import { DEFAULT_DNS_CANARY, parseDnsCanary } from '../dns/canary.js';
import { dnsServerProblem, parseDnsServers } from '../dns/resolver.js';
import { DEFAULT_CHUNK_ROWS } from '../jobs/chunking.js';
import { LEASE_POLICY } from '../limits/leases.js';
import { DEFAULT_CHECK_INTERVAL_MS } from '../refresh/hot-swap.js';
import { MX_LEARN_DEFAULTS } from '../refresh/mx-learn.js';
import * as z from '../zod.js';

// Every environment variable the functions read, with its type and default, in one schema parsed
// once per container (configuration read once, typed: Powertools commons envUtils), when its service
// instance is built (runtime/container.ts). No other module of functions/ reads process.env
// (test/unit/architecture/domain-boundaries.test.ts): the adapters and runtime wiring take their
// settings from the instance's config (runtime/services.ts), domain code takes them as arguments.
// An invalid value throws a ConfigError naming the variable, at the cold start.
//
// An empty variable counts as unset, so `X=` gives X's default. Logging and metrics variables
// (POWERTOOLS_*) are read by Powertools itself, the AWS_ENDPOINT_URL* and credentials by the SDK.

/** Seconds a key or account record may be served from a container's memory (revocation delay). */
export const DEFAULT_KEY_CACHE_SECONDS = 5;

/** Distinct domains one email checker resolves at once: a whole batch (docs/configuration.md). */
export const DEFAULT_DNS_CONCURRENCY = 100;

/** Default bound of a `?include=hostname` PTR lookup. */
export const DEFAULT_REVERSE_DNS_TIMEOUT_MS = 1000;

const text = z.string();

/** A count (rows, lookups): a whole number of at least `min`. */
function wholeNumber(min: number) {
  const error = `expected a whole number of at least ${min}`;
  return z.coerce.number<string>({ error }).check(z.int({ error }), z.minimum(min, { error }));
}

/** Seconds or milliseconds: any number of at least `min` (read with Number(), as before). */
function duration(min = 0) {
  const error = `expected a number of at least ${min}`;
  return z.coerce.number<string>({ error }).check(z.minimum(min, { error }));
}

/** `true` or `false`, nothing else: a misspelt switch fails instead of reading as off. */
const flag = z.pipe(
  z.enum(['true', 'false'], { error: 'expected true or false' }),
  z.transform((v) => v === 'true'),
);

/** `{"free":"key",...}`: a JSON object of strings. */
const stringMap = z.pipe(
  z.pipe(
    text,
    z.transform((value: string, ctx) => {
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.issues.push({ code: 'custom', message: 'expected JSON', input: value });
        return z.NEVER;
      }
    }),
  ),
  z.record(z.string(), z.string(), { error: 'expected a JSON object of strings' }),
);

/** The deployed names of the tables, bucket and queue; unset: the local emulators' names (resources.ts). */
export type ResourceVariable =
  | TableEnvVar
  | typeof BUCKET.envVar
  | typeof JOB_QUEUE.envVar
  | typeof WEBHOOK_QUEUE.envVar;
const RESOURCE_VARIABLES: readonly ResourceVariable[] = [
  ...TABLES.map((t) => t.envVar),
  BUCKET.envVar,
  JOB_QUEUE.envVar,
  WEBHOOK_QUEUE.envVar,
];
const resourceSchema = Object.fromEntries(
  RESOURCE_VARIABLES.map((name) => [name, z.optional(text)]),
) as Record<ResourceVariable, z.ZodMiniOptional<z.ZodMiniString>>;

export const ConfigSchema = z.object({
  ...resourceSchema,

  // Data layer and refreshed data (data refresh).
  NETINTEL_DATA_PATH: z._default(text, '/opt/data'),
  DATA_REFRESH_S3: z._default(flag, false),
  DATA_BUCKET: z.optional(text),
  DATA_CHECK_INTERVAL_MS: z._default(duration(), DEFAULT_CHECK_INTERVAL_MS),
  MX_DOMAINS_PER_RUN: z._default(wholeNumber(0), MX_LEARN_DEFAULTS.maxDomains),

  // IP data sources (docs/data-sources.md): read by the layer build, `npm run data:refresh` and the
  // refresh function. Local database files (MaxMind schema) take the place of the default data;
  // credentials make the refresh download and renew the operator's own database.
  /** A City (or Country) database in the MaxMind schema, or an IPinfo Lite file. */
  GEO_CITY_MMDB: z.optional(text),
  /** An ASN database in the MaxMind schema, or an IPinfo Lite file. */
  GEO_ASN_MMDB: z.optional(text),
  /** Location source: `dbip` (default), `maxmind` (default with MaxMind credentials), `ipinfo`. */
  GEO_CITY_SOURCE: z.optional(z.enum(['dbip', 'maxmind', 'ipinfo'])),
  /** Network source: `default` (ip-location-db), `maxmind` (default with credentials), `ipinfo` (default with a token). */
  GEO_ASN_SOURCE: z.optional(z.enum(['default', 'maxmind', 'ipinfo'])),
  // In AWS these come from a Secrets Manager secret, resolved at deploy (infra/constructs/data-refresh.ts).
  MAXMIND_ACCOUNT_ID: z.optional(text),
  MAXMIND_LICENSE_KEY: z.optional(text),
  MAXMIND_CITY_EDITION: z._default(text.check(z.regex(/^[A-Za-z0-9-]{1,64}$/)), 'GeoLite2-City'),
  MAXMIND_ASN_EDITION: z._default(text.check(z.regex(/^[A-Za-z0-9-]{1,64}$/)), 'GeoLite2-ASN'),
  IPINFO_TOKEN: z.optional(text),
  /** Operator geofeeds (RFC 8805): files or https URLs, comma-separated; their prefixes override the database. */
  GEOFEEDS: z._default(
    z.pipe(
      text,
      z.transform((v: string) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ),
    [],
  ),
  /**
   * Fetch every upstream from a mirror instead (`https://host/path` from `<mirror>/host/path`): for
   * deployments without internet access, and the tests' loopback upstreams.
   */
  DATA_UPSTREAM_MIRROR: z.optional(text),

  // DNS: resolvers ("host:port,host:port"; none: the system's), budgets, canary (email checks, IP lookup).
  DNS_SERVERS: z._default(
    z.pipe(
      text,
      z.transform((v: string, ctx) => {
        const servers = parseDnsServers(v);
        const bad = servers.flatMap((server, i) => {
          const problem = dnsServerProblem(server);
          return problem ? [`entry ${i + 1} of ${servers.length} ${problem}`] : [];
        });
        if (bad.length === 0) return servers;
        ctx.issues.push({ code: 'custom', message: bad.join('; '), input: v });
        return z.NEVER;
      }),
    ),
    [],
  ),
  /** Unset: the email checker's own default (email/check.ts). */
  DNS_BUDGET_MS: z.optional(duration()),
  DNS_CONCURRENCY: z._default(wholeNumber(1), DEFAULT_DNS_CONCURRENCY),
  DNS_CANARY: z._default(
    z.pipe(
      text,
      z.transform((v: string) => parseDnsCanary(v)),
    ),
    DEFAULT_DNS_CANARY,
  ),
  REVERSE_DNS_TIMEOUT_MS: z._default(duration(), DEFAULT_REVERSE_DNS_TIMEOUT_MS),

  // Signup check: RDAP bootstrap (URL or file; unset: the data layer's) and query timeout
  // (unset: signup/domain-age.ts's default).
  RDAP_BOOTSTRAP_URL: z.optional(text),
  RDAP_TIMEOUT_MS: z.optional(duration(1)),

  // Keys, accounts and limits.
  KEY_CACHE_SECONDS: z._default(duration(), DEFAULT_KEY_CACHE_SECONDS),
  /** Each plan's shared usage-plan key, for accounts without their own (authorizer). */
  USAGE_PLAN_KEYS: z._default(stringMap, {}),
  /** The usage-plan key of calls the authorizer refuses with a 401 it explains (authorizer). */
  REFUSED_USAGE_PLAN_KEY: z.optional(text),
  /** Required by the risk functions only, so checked where they use it (services.ts userIdSecret). */
  USER_ID_HMAC_SECRET: z.optional(text),
  /** The CloudFront origin header's value: without it no request counts as coming from our edge. */
  ORIGIN_SECRET: z.optional(text),

  // Usage notices: the outbox file (local) or the SES sender (AWS; required when a notice is sent).
  NOTIFY_OUTBOX: z.optional(text),
  NOTIFY_FROM: z.optional(text),

  // Dashboard: the address sign-in links point to (`https://…/dashboard/`), from configuration and
  // never from the request's Host, which a caller could set to a site of theirs.
  DASHBOARD_URL: z.optional(text),

  // List jobs.
  JOB_CHUNK_ROWS: z._default(wholeNumber(1), DEFAULT_CHUNK_ROWS),
  JOB_SWEEP_GRACE_SECONDS: z._default(duration(), JOB_SWEEP.graceSeconds),
  /**
   * Calls a minute from which an account's calls may be admitted from quota leases (limits/leases.ts
   * LEASE_POLICY.minPerMinute). The local tests lower it to drive leases at small limits.
   */
  QUOTA_LEASE_MIN_PER_MINUTE: z._default(wholeNumber(1), LEASE_POLICY.minPerMinute),

  // Webhooks (docs/webhooks.md). true lets webhooks go to 127.0.0.0/8 and ::1: the local stack's
  // tests only; the CDK stack never sets it, and no other private address is ever allowed.
  WEBHOOKS_ALLOW_LOOPBACK: z._default(flag, false),

  // Custom hostnames (docs/custom-hostnames.md).
  BASE_DOMAIN: z._default(text, 'localhost'),
  CUSTOM_HOSTNAME_TARGET: z.optional(text),
  CUSTOM_HOSTNAME_DISTRIBUTION_ID: z.optional(text),
  CUSTOM_HOSTNAME_CONNECTION_GROUP_ID: z.optional(text),
  /**
   * `scheduled`: this function has no CloudFront access (the dashboard's); certificates are
   * requested and released by the scheduled verifier, which has it.
   */
  CUSTOM_HOSTNAME_CERTIFICATES: z._default(z.enum(['now', 'scheduled']), 'now'),

  // Emulator endpoints (local stack): S3 then needs path-style addressing (aws/s3-client.ts).
  AWS_ENDPOINT_URL: z.optional(text),
  AWS_ENDPOINT_URL_S3: z.optional(text),

  // Bounds of every AWS call (aws/call-bounds.ts). Unset: each kind of call keeps its own. Set, one
  // value for every kind: the tests shorten them (a hung emulator answers 503 in a second, not in
  // the seconds AWS's latencies call for) and the test stacks lengthen them for their 200-call races.
  /** The TCP connection to a service's endpoint. */
  AWS_CONNECT_TIMEOUT_MS: z.optional(duration(1)),
  /** From a request sent to its response's headers, and the longest silence of a response's body. */
  AWS_REQUEST_TIMEOUT_MS: z.optional(duration(1)),

  // X-Ray tracing (aws/tracing.ts): Lambda sets AWS_EXECUTION_ENV; POWERTOOLS_TRACE_ENABLED=false
  // turns tracing off there too. Read by tracingEnabled(), on its own.
  AWS_EXECUTION_ENV: z.optional(text),
  POWERTOOLS_TRACE_ENABLED: z.optional(flag),
});

export type Config = Readonly<z.output<typeof ConfigSchema>>;

/** One or more variables hold values the schema refuses; `variables` names them. */
export class ConfigError extends Error {
  constructor(
    readonly variables: readonly string[],
    problems: readonly string[],
  ) {
    super(`invalid environment: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The configuration in `env` (a process environment). Values are never echoed in the error: some
 * are secrets (USAGE_PLAN_KEYS holds API keys).
 */
export function parseConfig(env: Readonly<Record<string, string | undefined>>): Config {
  return Object.freeze(parseWith(ConfigSchema, env));
}

function parseWith<S extends z.ZodMiniType>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
): z.output<S> {
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const result = schema.safeParse(set);
  if (result.success) return result.data;
  const variables = [...new Set(result.error.issues.map((issue) => String(issue.path[0])))];
  const problems = result.error.issues.map((issue) => `${String(issue.path[0])}: ${issue.message}`);
  throw new ConfigError(variables, problems);
}

/**
 * The configuration of this process's environment, parsed now (a ConfigError names any bad
 * variable). The container reads it once (runtime/container.ts); the local stack, when it builds
 * its services.
 */
export function environmentConfig(): Config {
  return parseConfig(process.env);
}

const TracingSchema = z.pick(ConfigSchema, { AWS_EXECUTION_ENV: true, POWERTOOLS_TRACE_ENABLED: true });

/**
 * Whether this process records X-Ray traces (aws/tracing.ts): in Lambda (AWS_EXECUTION_ENV is set)
 * unless POWERTOOLS_TRACE_ENABLED=false, the rule Powertools Tracer applies itself; never locally or
 * in tests. Asked once, when aws/tracing.ts is loaded: it reads its two variables without caching
 * the rest, which the local tooling sets after it has imported the functions.
 */
export function tracingEnabled(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  const { AWS_EXECUTION_ENV, POWERTOOLS_TRACE_ENABLED } = parseWith(TracingSchema, env);
  return AWS_EXECUTION_ENV !== undefined && POWERTOOLS_TRACE_ENABLED !== false;
}

/** Where a function follows refreshed data versions, and how often it looks; null: it does not. */
export interface DataRefresh {
  bucket: string;
  checkIntervalMs: number;
}

export type DataRefreshSettings = Pick<
  Config,
  'DATA_REFRESH_S3' | 'DATA_BUCKET' | typeof BUCKET.envVar | 'DATA_CHECK_INTERVAL_MS'
>;

/**
 * DATA_REFRESH_S3=true follows the versions the refresh Lambda publishes in DATA_BUCKET, else in the
 * jobs bucket; without a bucket the layer's data is all there is.
 */
export function dataRefresh(settings: DataRefreshSettings): DataRefresh | null {
  if (!settings.DATA_REFRESH_S3) return null;
  const bucket = settings.DATA_BUCKET ?? settings[BUCKET.envVar];
  return bucket ? { bucket, checkIntervalMs: settings.DATA_CHECK_INTERVAL_MS } : null;
}
