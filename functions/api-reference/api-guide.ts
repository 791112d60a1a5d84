import { PLANS } from '../lib/accounts/plans.js';
import { NEW_DOMAIN_DAYS } from '../lib/signup/score.js';
import { API_TAGS, type ApiTag, type KeyType, type Route } from '../routes.js';
import { testDomainAgesTable, testEmailsTable, testNetworksTable } from './test-mode-doc.js';

// The prose of the API reference (OpenAPI `info.description` and the tag descriptions, Markdown that
// /docs renders above the operations): getting started, authentication, limits and the headers
// that report them, errors, and the attribution the CC BY data requires. Tables that restate the
// route table or the plans are generated from them.

/**
 * CC BY 4.0 and CC BY-SA 4.0 require attribution wherever the data is served. The default sources'
 * lines, then those of the sources a deployer may choose instead (docs/data-sources.md); GET /v1/data
 * lists exactly the ones a deployment serves.
 */
export const ATTRIBUTION = [
  'IP geolocation (the default): **DB-IP Lite** by [DB-IP](https://db-ip.com), licensed ' +
    '[CC BY 4.0](https://creativecommons.org/licenses/by/4.0/).',
  'ASN data (the default): [ip-location-db](https://github.com/sapics/ip-location-db) (DB-IP, RouteViews, NRO), ' +
    '[CC BY 4.0](https://creativecommons.org/licenses/by/4.0/).',
  'Postal codes and subdivision names: **[GeoNames](https://www.geonames.org)**, licensed ' +
    '[CC BY 4.0](https://creativecommons.org/licenses/by/4.0/).',
  'ISO 3166-2 subdivision codes and names: [Debian iso-codes](https://salsa.debian.org/iso-codes-team/iso-codes), ' +
    'licensed LGPL-2.1-or-later.',
  'Where a deployment uses MaxMind GeoLite2 data: this product includes GeoLite2 data created by MaxMind, ' +
    'available from [https://www.maxmind.com](https://www.maxmind.com).',
  'Where a deployment uses IPinfo Lite data: IP address data powered by [IPinfo](https://ipinfo.io), licensed ' +
    '[CC BY-SA 4.0](https://creativecommons.org/licenses/by-sa/4.0/).',
  'The datasets a deployment serves, with their sources, versions, licences and credit lines: `GET /v1/data`.',
] as const;

export const TAG_DESCRIPTIONS: Record<ApiTag, string> = {
  Geolocation:
    "The visitor's own connection, called from the visitor's browser with a publishable key. Behind the " +
    "deployment's CloudFront the location comes from CloudFront's viewer headers.",
  'IP lookup':
    'Addresses you supply, from your backend with a secret key: location (DB-IP Lite by default; MaxMind or IPinfo ' +
    'data where the deployment chose it: see `GET /v1/data`), network, derived ' +
    'context and security flags. Unknown and private addresses are `found: false`, never an error.',
  Email:
    'Syntax, DNS (MX), disposable, free-provider, role and typo checks of addresses, and the signup score that ' +
    'combines an address with an IP address and a user agent. No mailbox is contacted.',
  'List jobs':
    'Background checks of up to 100,000 addresses (JSON or CSV), charged at creation per distinct address; ' +
    'poll the job, then download the results CSV. Jobs and results are deleted 7 days after creation.',
  Risk: "Impossible-travel detection against one stored baseline location per user, and the baseline's removal.",
  Account:
    'What applies to the whole account: the rate limit and monthly cap (see the introduction), and this ' +
    'description of the API.',
  Webhooks:
    'Signed callbacks when work is done: an endpoint receives job.completed, job.failed and usage.threshold ' +
    'events as JSON POSTs carrying a Netintel-Signature header (HMAC-SHA256 of "t.body" under the endpoint\'s ' +
    'secret). Failed deliveries are retried with exponential backoff for 24 hours; every attempt is logged. ' +
    'Not billed. See the Webhooks section of the guide for the payloads and how to verify a signature.',
  Dashboard:
    "The account dashboard's own API (`/dashboard`): a passwordless e-mail link opens a session, carried " +
    'in an HttpOnly cookie; every change also sends the X-CSRF-Token the session endpoints return. Not ' +
    'billed. The list-job routes accept the same session in place of a secret key.',
};

const code = (text: string) => `\`${text}\``;
const keyRoutes = (routes: readonly Route[], type: KeyType) =>
  routes
    .filter((r) => r.auth === type)
    .map((r) => code(`${r.method} ${r.path}`))
    .join(', ');

function plansTable(): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return [
    '| Plan | Calls per minute | Billed requests per month | Security flags |',
    '|---|---|---|---|',
    ...PLANS.map(
      (p) => `| ${p.id} | ${n(p.perMinute)} | ${n(p.monthlyCap)} | ${p.includesSecurity ? 'yes' : 'no'} |`,
    ),
  ].join('\n');
}

/** `info.description` of the document; `routes` is the route table (its key routes fill the key table). */
export function apiGuide(routes: readonly Route[]): string {
  return `Visitor geolocation, IP lookup, email checks, signup scoring and impossible-travel detection, running in
your own AWS account. Every operation below has a real request and response (replayed against the service
by its tests) and the same call in curl and JavaScript.

## Getting started

1. **Base URL.** Paths are relative to the address this page is served from: the \`ApiUrl\` output of
   \`cdk deploy\` (or your \`domainName\`), or \`http://127.0.0.1:8787\` when running \`npm start\`. Every
   endpoint is under \`/v1\`.
2. **Keys.** An account has two kinds of key. \`npm start\` prints a development pair; \`npm run admin -- key
   create\` issues more.
   - A **publishable** key (\`ni_pub_…\`) for code in your web pages, locked to the origins you allow.
   - A **secret** key (\`ni_sec_…\`) for your backend only.
3. **First call.**

   \`\`\`bash
   export NETINTEL_URL=http://127.0.0.1:8787
   export NETINTEL_SECRET_KEY=ni_sec_…
   curl "$NETINTEL_URL/v1/lookup/8.8.8.8" -H "Authorization: Bearer $NETINTEL_SECRET_KEY"
   \`\`\`

   The samples of each operation use these variables; in page code, \`NETINTEL_URL\` and
   \`NETINTEL_PUBLISHABLE_KEY\` are constants of your script. A JSON body needs
   \`Content-Type: application/json\` (or no Content-Type at all): \`curl -d\` alone sends a form type, which is
   \`415 unsupported_media_type\`.

## Authentication

| Key | Send it as | Operations |
|---|---|---|
| Publishable \`ni_pub_…\` | \`X-Api-Key: <key>\`; on \`GET /v1/geo\` also \`?key=<key>\` | ${keyRoutes(routes, 'publishable')} |
| Secret \`ni_sec_…\` | \`Authorization: Bearer <key>\` | ${keyRoutes(routes, 'secret')} |

- A publishable key is not secret: what protects it is its list of allowed origins, checked against the
  request's \`Origin\` (or \`Referer\`). From any other origin the answer is \`403 origin_not_allowed\` without
  CORS headers, so the browser blocks it whatever the body says. Allowed origins get CORS headers.
- A secret key stays on your server: never in a page, an app bundle or any client you do not control. Secret-key
  operations have no origin check and send no CORS headers.
- Send exactly one key. A missing, empty, malformed, unknown or revoked key, or one sent where its operation
  does not read it (\`?key=\` outside \`GET /v1/geo\`; a key of the right type in the wrong header), is
  \`401 invalid_api_key\`; a key of the other type is \`403 wrong_key_type\`, wherever it was sent. Nothing is
  billed for either.
- Test keys (\`ni_test_pub_…\`, \`ni_test_sec_…\`) work the same way on every operation: see Test mode.

## Limits and response headers

Each account has a per-minute rate limit, shared by every operation and counting HTTP calls (a batch of 100 is
one call; polling a job is one call), and a monthly cap of billed requests; each operation says what it bills.
Default plans:

${plansTable()}

- Every call past the key check counts against the minute, a call refused by validation included (it is never
  charged to the month), and its answer carries \`X-RateLimit-Limit\` (calls allowed per minute),
  \`X-RateLimit-Remaining\` (calls left in the current minute) and \`X-RateLimit-Reset\` (when the minute
  ends, in Unix epoch seconds). A call the monthly cap refuses is not counted and carries none of them.
- \`429 rate_limit_exceeded\` carries \`Retry-After\` (seconds until the minute ends) and clears on its own.
  \`429 monthly_limit_exceeded\` lasts until the next calendar month (UTC) or a plan upgrade; its body's
  \`remaining\` (and \`X-Monthly-Remaining\`) says how many requests are left. A batch or list job that would
  exceed the cap is refused whole, before any work.
- Every response, errors included, carries \`X-Request-Id\`. Quote it when you report a problem.

## Errors

Every non-2xx response is JSON: \`{"error": "<code>", "message": "<text>"}\`. Match on \`error\`: codes are
stable across versions, while \`message\` is for people and may change. Each operation lists the codes it can
answer, by status, with an example of each. An invalid email address is not an error: it is a result with
verdict \`reject\`. A DNS failure is not an error either: it is \`mx.status: unknown\` with reason
\`dns_unavailable\`.

## What the results are

IP-derived locations are estimates about a connection, not device positions or identities. Email checks look at
the domain and the address only: no mailbox is contacted. Verdicts, scores and flags (EU, compliance, tax, age,
security) are signals for your own policy, never legal, tax or identity determinations.

## Your account's own rules

The global policy can be corrected for your account alone, with the secret key (never billed): a private RFC 8805
geofeed (\`PUT /v1/account/geofeed\`: up to 10,000 prefixes and 1 MB, all or nothing, each refused row named in
\`lines\`) that places your own networks in \`/v1/geo\`, the lookups, the signup check and the risk check, where
answers say \`locationSource: "account_geofeed"\`; email allow and block lists and what privacy-relay aliases get
(\`PUT /v1/account/email-rules\`: a block is \`reject\` with reason \`blocked_by_account\`; \`relayAliases\` is
\`accept\`, \`review\` or \`reject\`); and the impossible-travel settings (\`PUT /v1/account/travel\`). A change is
in force on every route within a few seconds; a list job keeps the email rules of its creation.

## Webhooks

Instead of polling, register an HTTPS endpoint (\`POST /v1/webhooks\` with \`{url, events}\`; never billed): it
receives \`job.completed\` and \`job.failed\` when a list job ends and \`usage.threshold\` at 75, 90 and 100% of the
monthly cap, as JSON \`{id, type, createdAt, data: {object}}\` where \`object\` is the job as \`GET\` answers it or
the usage figures. A list job can also name its own receiver (\`?webhookUrl=\` at its creation). Each delivery
carries \`Netintel-Signature: t=<unix seconds>,v1=<hex>\`, the HMAC-SHA256 of \`<t>.<raw body>\` under the endpoint's
secret (shown once, at creation and rotation): recompute it over the raw body, compare in constant time, and
refuse a \`t\` more than 5 minutes from your clock (\`verifyWebhook\` in \`@netintel/client\` does all three).
Answer any 2xx; anything else is retried after 1, 4, 16, 64 and 256 minutes and then every 8 hours, for 24 hours,
after which the endpoint is disabled and the account told by e-mail. Delivery is at least once: deduplicate by
\`id\`. \`GET /v1/webhooks/{id}/deliveries\` lists every attempt (status, latency, the start of the answer) and
\`POST /v1/webhooks/{id}/redeliver\` sends any event again. Receivers must be public https hosts: private,
loopback and metadata addresses are refused when the endpoint is created and again at every connection.

## Test mode

Build against the API without being billed: create test keys (\`ni_test_pub_…\`, \`ni_test_sec_…\`) in the dashboard
or with \`npm run admin -- key create --type secret --test\`. Every operation answers a test key with the same shapes
as a live one, from fixed test data: no DNS or registry query, no live database, the same answer on every call.

- Never billed, never counted against the live account: test calls have their own per-minute window and month
  (the account's limits, counted apart), send no usage notices, and \`GET /v1/usage\` with a test key shows them.
- Kept apart: list jobs, risk baselines, webhook endpoints and their events made with a test key belong to the
  account's test side (its \`accountId\` ends in \`~test\`) and are invisible to live keys, and the reverse. A test
  list job completes and fires the test endpoints' webhooks.
- Your account's rules apply to test answers as to live ones; a test key may read them but not change them
  (\`403 live_key_required\`).
- Addresses outside the ranges below are not in the test data (\`found: false\`); \`GET /v1/geo\` then answers the
  first range's place for the caller. \`?include=hostname\` gives \`test-<address>.example.net\`, the address with
  \`-\` between its parts and an IPv6 one written out in full (\`test-192-0-2-1.example.net\`,
  \`test-2001-db8-0-0-0-0-0-1.example.net\`; an IPv4-mapped address is named by its IPv4 address).

${testNetworksTable()}

Any other address is checked by the live rules against small fixed lists (disposable: mailinator.com,
guerrillamail.com, 10minutemail.com), and every domain has a mail server \`mx.<domain>\` except the reserved
names (\`.test\`, \`.example\`, \`.invalid\`, \`.localhost\`), which do not exist.

${testEmailsTable()}

In the signup check, \`emailDomainAgeDays\` is the age of the address's registered domain (\`jane@mail.example.com\`
has example.com's), fixed for the domains below and unknown (\`null\`) for any other; \`new_domain\` is given under
${NEW_DOMAIN_DAYS} days.

${testDomainAgesTable()}

## Data and attribution

Each deployment chooses its IP data: DB-IP Lite by default, or the operator's own MaxMind (GeoIP2 or GeoLite2) or
IPinfo Lite database, refreshed in place, and RFC 8805 geofeeds that override it for their prefixes (operators:
\`docs/data-sources.md\` in the netintel repository says how, locally and in AWS). \`GET /v1/data\` lists the
datasets in service and every lookup answer names their versions in \`X-Data-Version\`
(\`ip=<version>, lists=<version>\`; \`none\` for data not yet built or fetched, such as a fresh clone's security lists).

${ATTRIBUTION.map((line) => `- ${line}`).join('\n')}
`;
}

/** The document's `tags`, in display order. */
export function apiTags() {
  return API_TAGS.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] }));
}
