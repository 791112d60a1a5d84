import { BATCH_SIZE, inBatches } from './batches.js';
import { aString, nonEmpty, wholeNumber } from './checks.js';
import { inWholeList, NetintelError } from './errors.js';
import { Jobs } from './jobs.js';
import { Rules } from './rules.js';
import { type CallOptions, checkedTimeout, Transport } from './transport.js';
import type {
  BatchLookupResult,
  DataReport,
  EmailCheckResult,
  GeoResult,
  LookupResult,
  RiskCheckRequest,
  RiskCheckResult,
  SignupCheckRequest,
  SignupCheckResult,
  Usage,
} from './types.js';
import { Webhooks } from './webhook-endpoints.js';

interface CommonOptions {
  /** The API's address, e.g. https://api.example.com (the stack's ApiUrl output, or npm start's). */
  baseUrl: string;
  /** Per attempt, in milliseconds (default 30,000). */
  timeoutMs?: number;
  /** Retries of a 429 (after its Retry-After) and of idempotent calls without an answer (default 2; 0 for none). */
  maxRetries?: number;
  /** A 429 asking to wait longer than this many seconds is not retried (default 60). */
  maxRetryAfterSeconds?: number;
  /** Batches in flight at once for lookupMany and checkEmails (default 4). */
  concurrency?: number;
  /** Another fetch (tests, proxies); the global fetch by default. */
  fetch?: typeof fetch;
}

/** A server: every route, with the secret key (never put it in a browser). */
export interface SecretKeyOptions extends CommonOptions {
  secretKey: string;
  publishableKey?: never;
}

/** A browser: the publishable key allows geo() and validateEmail() only, from the key's origins. */
export interface PublishableKeyOptions extends CommonOptions {
  publishableKey: string;
  secretKey?: never;
}

export type NetintelOptions = SecretKeyOptions | PublishableKeyOptions;

/** Field selection: `['country', 'security.isVpn']` or `'country,security.isVpn'` (the API's ?fields=). */
export type Fields = string | readonly string[];

/** A group of an answer with `fields`: `security.isVpn` keeps only that field of `security`. */
type SelectedGroup<V> = V extends readonly unknown[] ? V : V extends object ? Partial<V> : V;

/** Any answer with `fields`: each field may be absent, and each group may hold only some of its fields. */
type Sparse<T> = { [K in keyof T]?: SelectedGroup<T[K]> };

/** An answer with `fields`: the fields asked for may be there, and the ones every answer has are. */
export type Selected<T, Always extends keyof T> = Sparse<T> & Pick<T, Always>;

function fieldsParam(fields: Fields | undefined): string | undefined {
  return fields === undefined ? undefined : typeof fields === 'string' ? fields : fields.join(',');
}

/**
 * baseUrl: an absolute http(s) URL without a user or password, else a TypeError naming it now rather
 * than at the first call. `localhost:8787` parses as a URL of the scheme `localhost:`, and fetch
 * refuses other schemes and credentials with a TypeError no NetintelError handler catches.
 */
function checkedBaseUrl(value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password) {
    return value as string;
  }
  const got = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw new TypeError(
    `baseUrl must be the API's http:// or https:// address without a user or password, e.g. https://api.example.com (got ${got})`,
  );
}

/** maxRetryAfterSeconds: a number of seconds from 0, or Infinity (any wait); a RangeError otherwise (NaN would turn 429 retries off). */
function retryAfterLimit(value: number): number {
  if (typeof value === 'number' && value >= 0) return value;
  throw new RangeError(
    `maxRetryAfterSeconds must be a number of seconds from 0, or Infinity (got ${String(value)})`,
  );
}

export class Netintel {
  private readonly transport: Transport;
  private readonly concurrency: number;
  /** List jobs: create, wait, results, list (secret key). */
  readonly jobs: Jobs;
  /** The account's own rules: geofeed, email rules, travel settings (secret key, not billed). */
  readonly rules: Rules;
  /** The account's webhook endpoints: create, test, deliveries, rotateSecret... (secret key, not billed). */
  readonly webhooks: Webhooks;

  constructor(options: NetintelOptions) {
    const key = options.secretKey ?? options.publishableKey;
    if (typeof key !== 'string' || key === '' || (options.secretKey && options.publishableKey)) {
      throw new TypeError('new Netintel() takes one of secretKey or publishableKey');
    }
    const kind = options.secretKey ? 'secret' : 'publishable';
    // A secret key must never reach a browser: refused by its prefix before it is sent anywhere.
    if (kind === 'publishable' && /^ni_(test_)?sec_/.test(key)) {
      throw new TypeError(
        'publishableKey is a secret key (ni_sec_…): pass it as secretKey, and never in a browser',
      );
    }
    if (kind === 'secret' && /^ni_(test_)?pub_/.test(key)) {
      throw new TypeError('secretKey is a publishable key (ni_pub_…): pass it as publishableKey');
    }
    this.transport = new Transport({
      baseUrl: checkedBaseUrl(options.baseUrl),
      auth: { kind, key },
      timeoutMs: checkedTimeout(options.timeoutMs ?? 30_000),
      maxRetries: wholeNumber(options.maxRetries ?? 2, 'maxRetries', 0),
      maxRetryAfterSeconds: retryAfterLimit(options.maxRetryAfterSeconds ?? 60),
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    });
    this.concurrency = wholeNumber(options.concurrency ?? 4, 'concurrency', 1);
    this.jobs = new Jobs(() => this.secret('jobs.*'));
    this.rules = new Rules(() => this.secret('rules.*'));
    this.webhooks = new Webhooks(() => this.secret('webhooks.*'));
  }

  /** The caller's own connection: location, network and context (a browser, publishable key). */
  geo(options: CallOptions & { include?: 'hostname'; fields: Fields }): Promise<Selected<GeoResult, 'ip'>>;
  geo(options?: CallOptions & { include?: 'hostname' }): Promise<GeoResult>;
  geo(options: CallOptions & { include?: 'hostname'; fields?: Fields } = {}): Promise<Sparse<GeoResult>> {
    const { include, fields, ...call } = options;
    return this.transport.json({
      ...call,
      method: 'GET',
      path: '/v1/geo',
      query: { include, fields: fieldsParam(fields) },
    });
  }

  /** One IPv4 or IPv6 address. */
  async lookup(
    ip: string,
    options: CallOptions & { include?: 'hostname'; userAgent?: string; fields: Fields },
  ): Promise<Selected<LookupResult, 'ip' | 'found'>>;
  async lookup(
    ip: string,
    options?: CallOptions & { include?: 'hostname'; userAgent?: string },
  ): Promise<LookupResult>;
  async lookup(
    ip: string,
    options: CallOptions & { include?: 'hostname'; userAgent?: string; fields?: Fields } = {},
  ): Promise<Sparse<LookupResult>> {
    const { include, userAgent, fields, ...call } = options;
    const transport = this.secret('lookup()');
    return transport.json({
      ...call,
      method: 'GET',
      path: `/v1/lookup/${encodeURIComponent(nonEmpty(ip, 'lookup()'))}`,
      query: { include, userAgent, fields: fieldsParam(fields) },
    });
  }

  /**
   * Any number of addresses, in batches of 100 (POST /v1/lookup, each address billed), `concurrency`
   * batches at a time; results in input order. One malformed address fails its batch and the call.
   */
  async lookupMany(
    ips: readonly string[],
    options: CallOptions & { fields: Fields },
  ): Promise<Selected<BatchLookupResult, 'ip' | 'found'>[]>;
  async lookupMany(ips: readonly string[], options?: CallOptions): Promise<BatchLookupResult[]>;
  async lookupMany(
    ips: readonly string[],
    options: CallOptions & { fields?: Fields } = {},
  ): Promise<Sparse<BatchLookupResult>[]> {
    const { fields, ...call } = options;
    const transport = this.secret('lookupMany()');
    return inBatches(
      ips,
      async (slice, signal, start) =>
        transport
          .results<BatchLookupResult>(
            {
              ...call,
              signal,
              method: 'POST',
              path: '/v1/lookup',
              json: fields === undefined ? { ips: slice } : { ips: slice, fields },
            },
            slice.length,
          )
          .catch((error: unknown) => {
            throw inWholeList(error, 'ips', start);
          }),
      { size: BATCH_SIZE, concurrency: this.concurrency, signal: options.signal },
    );
  }

  /**
   * One address: syntax, domain, mail server, disposable, role, typo suggestion, verdict. A
   * publishable key calls POST /v1/email/validate (a browser); the secret key, which that route
   * refuses, calls POST /v1/email/batch with the one address: the same result, billed the same.
   */
  async validateEmail(email: string, options: CallOptions = {}): Promise<EmailCheckResult> {
    aString(email, 'validateEmail()');
    if (this.transport.options.auth.kind === 'publishable') {
      return this.transport.json({ ...options, method: 'POST', path: '/v1/email/validate', json: { email } });
    }
    const [result] = await this.transport.results<EmailCheckResult>(
      { ...options, method: 'POST', path: '/v1/email/batch', json: { emails: [email] } },
      1,
    );
    return result as EmailCheckResult;
  }

  /** Any number of addresses, in batches of 100 (POST /v1/email/batch); results in input order. */
  async checkEmails(emails: readonly string[], options: CallOptions = {}): Promise<EmailCheckResult[]> {
    const transport = this.secret('checkEmails()');
    return inBatches(
      emails,
      async (slice, signal, start) =>
        transport
          .results<EmailCheckResult>(
            { ...options, signal, method: 'POST', path: '/v1/email/batch', json: { emails: slice } },
            slice.length,
          )
          .catch((error: unknown) => {
            throw inWholeList(error, 'emails', start);
          }),
      { size: BATCH_SIZE, concurrency: this.concurrency, signal: options.signal },
    );
  }

  /** Email + IP + user agent scored together (call it from your backend, never the browser). */
  async signupCheck(request: SignupCheckRequest, options: CallOptions = {}): Promise<SignupCheckResult> {
    return this.secret('signupCheck()').json({
      ...options,
      method: 'POST',
      path: '/v1/signup/check',
      json: request,
    });
  }

  /** Impossible travel: this login against the user's baseline location. */
  async riskCheck(request: RiskCheckRequest, options: CallOptions = {}): Promise<RiskCheckResult> {
    return this.secret('riskCheck()').json({
      ...options,
      method: 'POST',
      path: '/v1/risk/check',
      json: request,
    });
  }

  /** Forgets a user's baseline location (idempotent, not billed). */
  async deleteBaseline(userId: string, options: CallOptions = {}): Promise<void> {
    await this.secret('deleteBaseline()').send({
      ...options,
      method: 'DELETE',
      path: '/v1/risk/baseline',
      json: { userId },
    });
  }

  /** The month's usage against the cap, and `days` of daily history (1-90; not billed). */
  async usage(options: CallOptions & { days?: number } = {}): Promise<Usage> {
    const { days, ...call } = options;
    return this.secret('usage()').json({ ...call, method: 'GET', path: '/v1/usage', query: { days } });
  }

  /**
   * The data in service (not billed): each dataset with its source, version, licence and
   * attribution, the data versions, and what is missing with how to fill it.
   */
  async data(options: CallOptions = {}): Promise<DataReport> {
    return this.secret('data()').json({ ...options, method: 'GET', path: '/v1/data' });
  }

  private secret(what: string): Transport {
    if (this.transport.options.auth.kind === 'secret') return this.transport;
    throw new NetintelError(
      0,
      'wrong_key_type',
      `${what} needs the secret key: a publishable key may call geo() and validateEmail() only (from a browser on one of its origins)`,
    );
  }
}
