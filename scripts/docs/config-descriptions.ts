// What each configuration variable does, for docs/configuration.md (npm run docs:generate). Kept
// out of the schema (functions/lib/runtime/config.ts) so the texts do not ship in every Lambda bundle;
// typed by the schema's keys, so a variable added there fails to compile until it is described here.
import type { ConfigSchema, ResourceVariable } from '../../functions/lib/runtime/config.js';

type Described = Exclude<keyof typeof ConfigSchema.shape, ResourceVariable>;

export const CONFIG_DESCRIPTIONS: Record<Described, string> = {
  NETINTEL_DATA_PATH:
    'Root of the data layer: IP databases, lists and their manifests (`layers/data` under `npm start` and the tests).',
  DATA_REFRESH_S3:
    '`true`: follow the data versions the refresh function publishes in S3 (DATA_BUCKET, else the jobs bucket). Set by the stack; locally the data directory is followed instead.',
  DATA_BUCKET:
    'The bucket refreshed data versions are published in (set by the stack); unset: the jobs bucket.',
  DATA_CHECK_INTERVAL_MS:
    'How often a function looks for a newer data version, in ms, and swaps it in without a cold start (`npm start` uses 10000).',
  MX_DOMAINS_PER_RUN:
    'Data refresh: MX queries a run makes to learn the mail servers of listed domains (the `mx_host` table), continuing where the last run stopped.',
  GEO_CITY_MMDB:
    'Your own location database file: a City (or Country) database in the MaxMind schema, or an IPinfo Lite file; the layer is rebuilt with it (docs/data-sources.md).',
  GEO_ASN_MMDB:
    'Your own network database file: an ASN database in the MaxMind schema, or an IPinfo Lite file.',
  GEO_CITY_SOURCE:
    'Location source: `dbip` (the default), `maxmind` (the default with MaxMind credentials) or `ipinfo`.',
  GEO_ASN_SOURCE:
    'Network source: `default` (ip-location-db), `maxmind` (the default with MaxMind credentials) or `ipinfo` (the default with an IPinfo token).',
  MAXMIND_ACCOUNT_ID:
    'MaxMind account id: with the licence key, the refresh downloads and renews MaxMind databases (in AWS from the `maxmindSecret` secret).',
  MAXMIND_LICENSE_KEY: 'MaxMind licence key (with MAXMIND_ACCOUNT_ID).',
  MAXMIND_CITY_EDITION: 'MaxMind location edition to download (`GeoIP2-City` with a paid licence).',
  MAXMIND_ASN_EDITION: 'MaxMind network edition to download.',
  IPINFO_TOKEN:
    'IPinfo token: the refresh downloads and renews IPinfo Lite (in AWS from the `ipinfoSecret` secret).',
  GEOFEEDS:
    'Operator geofeeds (RFC 8805), files or https URLs, comma-separated: their prefixes override the location database.',
  DATA_UPSTREAM_MIRROR:
    'Fetch every upstream from a mirror instead (`https://host/path` from `<mirror>/host/path`): for deployments without internet access.',
  DNS_SERVERS:
    "Resolvers for email checks and reverse DNS, `host:port,host:port` (each host an IP address; IPv6 with a port as `[ipv6]:port`); unset: the system's (in AWS: `-c dnsServers=`).",
  DNS_BUDGET_MS:
    'DNS time budget of one email check, in ms; when it runs out the status is `unknown` (`dns_unavailable`).',
  DNS_CONCURRENCY:
    'Distinct domains one email checker resolves at once (a whole batch of 100), per process: lookups beyond it wait for a slot before their budget starts.',
  DNS_CANARY:
    'Names whose MX must resolve for negative DNS answers to be believed, comma-separated; `off` disables the canary.',
  REVERSE_DNS_TIMEOUT_MS:
    'Time allowed for the reverse-DNS name of `?include=hostname`, in ms (`null` when it runs out).',
  RDAP_BOOTSTRAP_URL:
    "Signup check: the RDAP bootstrap, a URL or a file; unset: the data layer's snapshot of IANA's `dns.json`.",
  RDAP_TIMEOUT_MS:
    'Signup check: the most one domain-age lookup waits for RDAP (the bootstrap file loading, then the query), in ms.',
  KEY_CACHE_SECONDS:
    'How long a container serves key and account records from memory: the delay before a revocation takes effect.',
  USAGE_PLAN_KEYS:
    "Each plan's shared usage-plan key, for accounts without their own, as JSON (authorizer; set by the stack).",
  REFUSED_USAGE_PLAN_KEY:
    'The usage-plan key of calls the authorizer refuses with a 401 it explains (set by the stack).',
  USER_ID_HMAC_SECRET:
    'Key of the user-id hashes naming impossible-travel baselines: a generated Secrets Manager secret in AWS, `DATA_DIR/user-id-secret` locally. Required by the risk functions.',
  ORIGIN_SECRET:
    "The value of CloudFront's X-Origin-Verify header (set by the stack): GET /v1/geo trusts the CloudFront-Viewer-* headers only with it.",
  NOTIFY_OUTBOX:
    'Local stack: the file usage notices and sign-in links are appended to instead of being sent (`DATA_DIR/outbox.jsonl`).',
  NOTIFY_FROM:
    'SES identity usage notices and sign-in links are sent from (stack context `notifyFrom`, required at deploy).',
  DASHBOARD_URL:
    "The address dashboard sign-in links point to (`https://…/dashboard/`); unset in AWS: the name the request reached CloudFront on, when it is the distribution's own or BASE_DOMAIN.",
  JOB_CHUNK_ROWS: 'Rows per list-job chunk (one queue message, checked by one processor invocation).',
  JOB_SWEEP_GRACE_SECONDS:
    'Age of a half-done list-job creation before the periodic sweep settles it (the local server settles everything at its start).',
  QUOTA_LEASE_MIN_PER_MINUTE:
    'Calls a minute from which an account\'s calls may be admitted from quota leases (docs/architecture.md, "Counters that scale").',
  WEBHOOKS_ALLOW_LOOPBACK:
    'Webhooks: `true` lets endpoints on 127.0.0.0/8 and ::1 receive events (the local stack and its tests only; the CDK stack never sets it, and no other private address is ever allowed) (docs/webhooks.md).',
  BASE_DOMAIN: "Custom hostnames: the service's own domain (docs/custom-hostnames.md).",
  CUSTOM_HOSTNAME_TARGET: 'Custom hostnames: the CNAME target customers point their hostnames at.',
  CUSTOM_HOSTNAME_DISTRIBUTION_ID:
    'Custom hostnames: the multi-tenant CloudFront distribution (set by the stack).',
  CUSTOM_HOSTNAME_CONNECTION_GROUP_ID:
    "Custom hostnames: the distribution's connection group (set by the stack).",
  CUSTOM_HOSTNAME_CERTIFICATES:
    "Custom hostnames: `now` requests and releases certificates itself; `scheduled` leaves that to the scheduled verifier (the dashboard's functions have no CloudFront access).",
  AWS_ENDPOINT_URL: 'One endpoint for every AWS service: the local emulators (the AWS SDK reads it too).',
  AWS_ENDPOINT_URL_S3: 'The S3 endpoint (an emulator): S3 is then addressed path-style.',
  AWS_CONNECT_TIMEOUT_MS:
    'Replaces the connection bound of every AWS call, in ms (docs/architecture.md, "Every AWS call is bounded").',
  AWS_REQUEST_TIMEOUT_MS: 'Replaces the response and silence bounds of every AWS call, in ms.',
  AWS_EXECUTION_ENV: 'Set by Lambda: X-Ray tracing is on only there.',
  POWERTOOLS_TRACE_ENABLED: '`false` turns X-Ray tracing off in a function.',
};
