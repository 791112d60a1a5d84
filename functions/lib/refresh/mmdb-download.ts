// Downloads a deployer's own MMDB database, MaxMind (GeoIP2 / GeoLite2 City or ASN, account id and
// licence key) or IPinfo Lite (token), for the scheduled refresh: only when the publisher has a new
// build, verified against the published checksum, size-capped, unpacked and opened before it is
// handed back, and checked against the database in service by `checkCandidate` before it replaces it.
//
// MaxMind (dev.maxmind.com "Updating GeoIP and GeoLite Databases", "Directly downloading databases"):
//   GET  {base}/geoip/databases/{edition}/download?suffix=tar.gz          the archive, HTTP basic auth
//        (account id : licence key), answered by a redirect to a presigned R2 URL on another host
//   GET  {base}/geoip/databases/{edition}/download?suffix=tar.gz.sha256   "<sha256hex>  <file name>"
//   HEAD on the archive's permalink gives `Last-Modified` (the build date) and does not count against
//        the daily download limit (30 a day for GeoLite accounts), so a run with nothing new costs only
//        that HEAD.
// IPinfo (community.ipinfo.io "Checksum endpoint for data downloads", "How IPinfo delivers database
// downloads"):
//   GET  {base}/data/ipinfo_lite.mmdb?token=...                 the plain .mmdb, redirected to a CDN
//   GET  {base}/data/ipinfo_lite.mmdb/checksums?token=...       {"checksums": {"md5", "sha1", "sha256"}}
//   IPinfo's documented way to tell whether there is a new build is to compare that sha256 with the
//   file's own, so an IPinfo run with nothing new costs only the checksum request.
//
// Redirects are followed by hand so that the Authorization header never goes to another origin (the
// storage host gets only its presigned URL). Credentials stay in private fields: they are in no error
// message, no URL this module reports (query values other than `suffix` are masked) and no
// serialisation of a source object.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import { Reader, type Response } from 'maxmind';
import { unpackTar } from 'modern-tar';
import { countMmdbNetworks } from '../ip/compile/mmdb-networks.js';

const gunzip = promisify(gunzipCallback);

/** Redirects followed at most (MaxMind and IPinfo each answer one). */
const MAX_REDIRECTS = 5;
/** Largest checksum response read (MaxMind's is ~100 bytes, IPinfo's ~200). */
const MAX_CHECKSUM_BYTES = 16 * 1024;
/** Most members accepted in a MaxMind archive (it has a directory, the .mmdb and 2-3 text files). */
const MAX_ARCHIVE_MEMBERS = 8;
/** Room for the tar headers and the text files beside the .mmdb when gunzip output is capped. */
const TAR_OVERHEAD_BYTES = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/** GeoLite2 City is ~60 MB unpacked, GeoIP2 City ~130 MB; IPinfo Lite ~50 MB. */
const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;
const REDACTED = '[redacted]';

/** Why a database could not be downloaded; the message says more, with no credential in it. */
export type DatabaseUnavailableReason =
  | 'auth' // the publisher refused the credentials (401, 403)
  | 'http' // another unexpected HTTP status, or a redirect that cannot be followed
  | 'network' // the request failed (connection, DNS, TLS)
  | 'timeout'
  | 'too-large' // over maxBytes, declared or actual
  | 'checksum' // missing, malformed, or not matching the bytes
  | 'archive' // not a tar.gz with exactly one .mmdb member
  | 'corrupt' // the .mmdb does not open, or its search tree is damaged
  | 'wrong-type'; // the .mmdb is not the kind of database asked for

export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';

  constructor(
    message: string,
    readonly reason: DatabaseUnavailableReason,
  ) {
    super(message);
  }
}

interface Endpoint {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
}

/** Query parameters shown as they are in reported URLs; every other value is masked. */
const SHOWN_PARAMS = new Set(['suffix']);

/** A URL safe to put in an error or a log: query values other than `suffix` are masked. */
export function redactUrl(url: URL | string): string {
  const parsed = new URL(String(url));
  parsed.username = '';
  parsed.password = '';
  const params = [...parsed.searchParams.keys()];
  for (const key of new Set(params)) {
    if (!SHOWN_PARAMS.has(key)) parsed.searchParams.set(key, REDACTED);
  }
  return parsed.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED);
}

abstract class SourceBase {
  abstract readonly provider: 'maxmind' | 'ipinfo';
  /** The MaxMind edition id ("GeoLite2-City") or "ipinfo_lite". */
  abstract readonly edition: string;
  abstract readonly baseUrl: string;
  /** How the database is published: a tar.gz holding the .mmdb, or the .mmdb itself. */
  abstract readonly packaging: 'tar.gz' | 'mmdb';
  /** Whether a HEAD of the database URL tells its build date (and costs no download). */
  abstract readonly headTellsLastModified: boolean;
  /** @internal */ abstract databaseEndpoint(): Endpoint;
  /** @internal */ abstract checksumEndpoint(): Endpoint;
  /** @internal The published sha256 (lower-case hex) from the checksum response body. */
  abstract parseChecksum(body: string): string | null;
  /** @internal Whether an MMDB `database_type` is the kind of database this source is for. */
  abstract acceptsDatabaseType(databaseType: string): boolean;
  /** @internal Removes every credential from a text. */
  abstract redact(text: string): string;

  /** "MaxMind GeoLite2-City" or "IPinfo ipinfo_lite": for messages. */
  get label(): string {
    return `${this.provider === 'maxmind' ? 'MaxMind' : 'IPinfo'} ${this.edition}`;
  }

  toJSON(): Record<string, string> {
    return { provider: this.provider, edition: this.edition, baseUrl: this.baseUrl };
  }
}

/** The kind of database an edition id names, read from its name ("GeoLite2-City", "GeoIP2-ASN"). */
function editionKind(name: string): 'city' | 'country' | 'asn' | null {
  if (/ASN/i.test(name)) return 'asn';
  if (/City/i.test(name)) return 'city';
  if (/Country/i.test(name)) return 'country';
  return null;
}

function trimBase(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`base URL must be http(s): ${redactUrl(url)}`);
  }
  return url.toString().replace(/\/+$/, '');
}

function secretForms(secret: string): string[] {
  return secret ? [secret, encodeURIComponent(secret)] : [];
}

function redactAll(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join(REDACTED);
  return out;
}

export class MaxmindSource extends SourceBase {
  readonly provider = 'maxmind';
  readonly packaging = 'tar.gz';
  readonly headTellsLastModified = true;
  readonly edition: string;
  readonly baseUrl: string;
  readonly #authorization: string;
  readonly #secrets: string[];

  constructor(options: { edition: string; accountId: string; licenseKey: string; baseUrl?: string }) {
    super();
    if (!/^[A-Za-z0-9-]+$/.test(options.edition)) {
      throw new TypeError(`MaxMind edition id must be letters, digits and dashes: "${options.edition}"`);
    }
    if (!options.accountId || !options.licenseKey) {
      throw new TypeError('MaxMind needs an account id and a licence key');
    }
    this.edition = options.edition;
    this.baseUrl = trimBase(options.baseUrl ?? 'https://download.maxmind.com');
    const basic = Buffer.from(`${options.accountId}:${options.licenseKey}`).toString('base64');
    this.#authorization = `Basic ${basic}`;
    // The account id is no secret (and a short one would mask digits everywhere): the key and the
    // header value built from both are.
    this.#secrets = [basic, ...secretForms(options.licenseKey)];
  }

  #endpoint(suffix: string): Endpoint {
    const url = new URL(`${this.baseUrl}/geoip/databases/${this.edition}/download`);
    url.searchParams.set('suffix', suffix);
    return { url, headers: { authorization: this.#authorization } };
  }

  databaseEndpoint(): Endpoint {
    return this.#endpoint('tar.gz');
  }

  checksumEndpoint(): Endpoint {
    return this.#endpoint('tar.gz.sha256');
  }

  parseChecksum(body: string): string | null {
    return /^\s*([0-9a-fA-F]{64})(?:\s|$)/.exec(body)?.[1]?.toLowerCase() ?? null;
  }

  acceptsDatabaseType(databaseType: string): boolean {
    const kind = editionKind(this.edition);
    return kind ? editionKind(databaseType) === kind : databaseType === this.edition;
  }

  redact(text: string): string {
    return redactAll(text, this.#secrets);
  }
}

export class IpinfoSource extends SourceBase {
  readonly provider = 'ipinfo';
  readonly edition = 'ipinfo_lite';
  readonly packaging = 'mmdb';
  readonly headTellsLastModified = false;
  readonly baseUrl: string;
  readonly #token: string;

  constructor(options: { token: string; baseUrl?: string }) {
    super();
    if (!options.token) throw new TypeError('IPinfo needs an access token');
    this.baseUrl = trimBase(options.baseUrl ?? 'https://ipinfo.io');
    this.#token = options.token;
  }

  #endpoint(path: string): Endpoint {
    const url = new URL(`${this.baseUrl}/data/${path}`);
    url.searchParams.set('token', this.#token);
    return { url, headers: {} };
  }

  databaseEndpoint(): Endpoint {
    return this.#endpoint('ipinfo_lite.mmdb');
  }

  checksumEndpoint(): Endpoint {
    return this.#endpoint('ipinfo_lite.mmdb/checksums');
  }

  parseChecksum(body: string): string | null {
    try {
      const sha256 = (JSON.parse(body) as { checksums?: { sha256?: unknown } })?.checksums?.sha256;
      return typeof sha256 === 'string' && /^[0-9a-fA-F]{64}$/.test(sha256) ? sha256.toLowerCase() : null;
    } catch {
      return null;
    }
  }

  acceptsDatabaseType(databaseType: string): boolean {
    return /ipinfo/i.test(databaseType) && /lite/i.test(databaseType);
  }

  redact(text: string): string {
    return redactAll(text, secretForms(this.#token));
  }
}

export type DatabaseSource = MaxmindSource | IpinfoSource;

/** A MaxMind edition ("GeoLite2-City", "GeoIP2-City", "GeoLite2-ASN", ...) downloaded with an account's licence key. */
export function maxmindSource(options: {
  edition: string;
  accountId: string;
  licenseKey: string;
  baseUrl?: string;
}): MaxmindSource {
  return new MaxmindSource(options);
}

/** IPinfo Lite (country, continent and AS in one file) downloaded with an IPinfo access token. */
export function ipinfoSource(options: { token: string; baseUrl?: string }): IpinfoSource {
  return new IpinfoSource(options);
}

/** What the last successful download recorded; null on the first run. */
export interface PreviousDownload {
  /** `Last-Modified` of the last download, as the publisher sent it. */
  readonly lastModified: string | null;
  /** Published sha256 of the last download (of the archive for MaxMind, of the .mmdb for IPinfo). */
  readonly sha256: string | null;
}

export interface DownloadOptions {
  readonly previous: PreviousDownload | null;
  readonly fetchImpl?: typeof fetch;
  /** Deadline of the whole run (every request and the body); default 5 minutes. */
  readonly timeoutMs?: number;
  /** Cap on the download and on the unpacked .mmdb, in bytes; default 512 MiB. */
  readonly maxBytes?: number;
  readonly now?: () => Date;
}

export interface DatabaseUnchanged {
  readonly status: 'unchanged';
  /** ISO 8601. */
  readonly checkedAt: string;
  /** The publisher's `Last-Modified` when it sent one, else the previous one. */
  readonly lastModified: string | null;
}

export interface DatabaseDownloaded {
  readonly status: 'downloaded';
  readonly mmdb: Uint8Array;
  readonly lastModified: string | null;
  /** Published and verified sha256 of what was downloaded (the archive for MaxMind, the .mmdb for IPinfo). */
  readonly sha256: string;
  readonly edition: string;
  /** The MMDB metadata's `database_type`. */
  readonly databaseType: string;
  /** The MMDB metadata's build time, ISO 8601. */
  readonly buildDate: string;
  /** Networks in the file (`countMmdbNetworks`). */
  readonly networks: number;
  /** ISO 8601. */
  readonly checkedAt: string;
}

export type DownloadResult = DatabaseUnchanged | DatabaseDownloaded;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

interface Context {
  readonly source: DatabaseSource;
  readonly fetchImpl: typeof fetch;
  readonly signal: AbortSignal;
  readonly maxBytes: number;
}

/**
 * Sends a request, following redirects by hand: the Authorization header is dropped for good once a
 * redirect leaves the first URL's origin, and an https URL may not redirect to http.
 */
async function send(
  ctx: Context,
  endpoint: Endpoint,
  method: 'GET' | 'HEAD',
  extraHeaders: Record<string, string> = {},
): Promise<{ response: globalThis.Response; url: URL }> {
  const origin = endpoint.url.origin;
  let headers: Record<string, string> = { ...endpoint.headers, ...extraHeaders };
  let url = endpoint.url;
  for (let hops = 0; ; hops++) {
    const response = await ctx.fetchImpl(url, { method, headers, redirect: 'manual', signal: ctx.signal });
    if (!REDIRECT_STATUSES.has(response.status)) return { response, url };
    await response.body?.cancel().catch(() => {});
    const location = response.headers.get('location');
    if (!location) {
      throw unavailable(
        ctx,
        `redirect (HTTP ${response.status}) without a Location from ${redactUrl(url)}`,
        'http',
      );
    }
    if (hops >= MAX_REDIRECTS) throw unavailable(ctx, `more than ${MAX_REDIRECTS} redirects`, 'http');
    const next = new URL(location, url);
    if (next.protocol !== 'https:' && next.protocol !== 'http:') {
      throw unavailable(ctx, `redirect to a ${next.protocol} URL`, 'http');
    }
    if (url.protocol === 'https:' && next.protocol !== 'https:') {
      throw unavailable(ctx, `redirect from https to ${redactUrl(next)}`, 'http');
    }
    if (next.origin !== origin) {
      headers = Object.fromEntries(
        Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'),
      );
    }
    url = next;
  }
}

function unavailable(
  ctx: Context,
  message: string,
  reason: DatabaseUnavailableReason,
): DatabaseUnavailableError {
  return new DatabaseUnavailableError(ctx.source.redact(`${ctx.source.label}: ${message}`), reason);
}

function refuseStatus(ctx: Context, response: globalThis.Response, url: URL, what: string): never {
  const status = response.status;
  void response.body?.cancel().catch(() => {});
  if (status === 401 || status === 403) {
    const hint =
      ctx.source.provider === 'maxmind' ? 'check the account id and licence key' : 'check the access token';
    throw unavailable(ctx, `${what} refused (HTTP ${status}) at ${redactUrl(url)}: ${hint}`, 'auth');
  }
  throw unavailable(ctx, `${what} failed with HTTP ${status} at ${redactUrl(url)}`, 'http');
}

/** Reads a body into memory, refusing it past `limit` bytes; hashes it on the way. */
async function readCapped(
  ctx: Context,
  response: globalThis.Response,
  limit: number,
  what: string,
): Promise<{ bytes: Uint8Array; sha256: string }> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    void response.body?.cancel().catch(() => {});
    throw unavailable(ctx, `${what} is ${declared} bytes, over the ${limit}-byte cap`, 'too-large');
  }
  const hash = createHash('sha256');
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => {});
        throw unavailable(ctx, `${what} is over the ${limit}-byte cap`, 'too-large');
      }
      hash.update(value);
      chunks.push(value);
    }
  }
  const bytes = Buffer.concat(chunks, total);
  return {
    bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    sha256: hash.digest('hex'),
  };
}

function notNewer(candidate: string | null, previous: string | null | undefined): boolean {
  if (!candidate || !previous) return false;
  const a = Date.parse(candidate);
  const b = Date.parse(previous);
  return Number.isFinite(a) && Number.isFinite(b) && a <= b;
}

async function publishedChecksum(ctx: Context): Promise<string> {
  const { response, url } = await send(ctx, ctx.source.checksumEndpoint(), 'GET');
  if (!response.ok) refuseStatus(ctx, response, url, 'the checksum request was');
  const { bytes } = await readCapped(ctx, response, MAX_CHECKSUM_BYTES, 'the checksum');
  const sha256 = ctx.source.parseChecksum(new TextDecoder().decode(bytes));
  if (!sha256) throw unavailable(ctx, `no sha256 in the checksum from ${redactUrl(url)}`, 'checksum');
  return sha256;
}

/** The single `*.mmdb` member of a MaxMind tar.gz. */
async function extractMmdb(ctx: Context, archive: Uint8Array): Promise<Uint8Array> {
  let tar: Buffer;
  try {
    tar = await gunzip(archive, { maxOutputLength: ctx.maxBytes + TAR_OVERHEAD_BYTES });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') {
      throw unavailable(ctx, `the archive unpacks to over the ${ctx.maxBytes}-byte cap`, 'too-large');
    }
    throw unavailable(ctx, `the archive is not valid gzip: ${(error as Error).message}`, 'archive');
  }
  let members = 0;
  const mmdbNames: string[] = [];
  let oversize: string | null = null;
  let entries: Awaited<ReturnType<typeof unpackTar>>;
  try {
    entries = await unpackTar(tar, {
      strict: true,
      filter: (header) => {
        members++;
        const isMmdb = header.name.toLowerCase().endsWith('.mmdb');
        if (isMmdb) mmdbNames.push(header.name);
        if (header.size > ctx.maxBytes) oversize ??= header.name;
        return (
          isMmdb && header.type === 'file' && header.size <= ctx.maxBytes && members <= MAX_ARCHIVE_MEMBERS
        );
      },
    });
  } catch (error) {
    throw unavailable(ctx, `the archive is not a valid tar: ${(error as Error).message}`, 'archive');
  }
  if (members > MAX_ARCHIVE_MEMBERS) {
    throw unavailable(
      ctx,
      `the archive has ${members} members, more than the ${MAX_ARCHIVE_MEMBERS} expected`,
      'archive',
    );
  }
  if (oversize)
    throw unavailable(ctx, `archive member ${oversize} is over the ${ctx.maxBytes}-byte cap`, 'too-large');
  if (mmdbNames.length !== 1) {
    throw unavailable(ctx, `the archive has ${mmdbNames.length} .mmdb members, not one`, 'archive');
  }
  const data = entries[0]?.data;
  if (!data || entries[0]?.header.type !== 'file') {
    throw unavailable(ctx, `archive member ${mmdbNames[0]} is not a regular file`, 'archive');
  }
  return data;
}

/** Opens the file as the `maxmind` package will in service, and checks its tree and its type. */
function openMmdb(
  ctx: Context,
  mmdb: Uint8Array,
): { databaseType: string; buildDate: string; networks: number } {
  const buffer = Buffer.from(mmdb.buffer, mmdb.byteOffset, mmdb.byteLength);
  let reader: Reader<Response>;
  let networks: number;
  try {
    reader = new Reader<Response>(buffer);
    networks = countMmdbNetworks(buffer);
  } catch (error) {
    throw unavailable(
      ctx,
      `the database file is truncated or corrupt (${(error as Error).message})`,
      'corrupt',
    );
  }
  const { databaseType, buildEpoch } = reader.metadata;
  if (!ctx.source.acceptsDatabaseType(databaseType)) {
    throw unavailable(
      ctx,
      `the file is a "${databaseType}" database, not one for ${ctx.source.edition}`,
      'wrong-type',
    );
  }
  if (networks === 0) throw unavailable(ctx, 'the database has no networks', 'corrupt');
  return { databaseType, buildDate: buildEpoch.toISOString(), networks };
}

/**
 * Checks the publisher for a newer build of the source's database and downloads it if there is one.
 *
 * With `previous` set, a MaxMind run first sends a HEAD (no download counted) and stops there when
 * `Last-Modified` is not newer; an IPinfo run compares the published sha256 with `previous.sha256`.
 * Otherwise the checksum is fetched (and compared with `previous.sha256`: a re-published identical
 * build is not downloaded), then the database is requested with `If-Modified-Since` (a 304 ends the
 * run too), capped at `maxBytes`, verified against the checksum, unpacked (MaxMind), opened with the
 * `maxmind` reader, its search tree checked and its `database_type` matched to the edition.
 *
 * Throws `DatabaseUnavailableError` (credentials redacted) on any failure.
 */
export async function downloadDatabase(
  source: DatabaseSource,
  options: DownloadOptions,
): Promise<DownloadResult> {
  const now = options.now ?? (() => new Date());
  const previous = options.previous;
  const ctx: Context = {
    source,
    fetchImpl: options.fetchImpl ?? fetch,
    signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
  };
  const checkedAt = now().toISOString();
  try {
    let lastModified: string | null = null;

    if (previous?.lastModified && source.headTellsLastModified) {
      const { response, url } = await send(ctx, source.databaseEndpoint(), 'HEAD');
      if (!response.ok) refuseStatus(ctx, response, url, 'the HEAD request was');
      void response.body?.cancel().catch(() => {});
      lastModified = response.headers.get('last-modified');
      if (notNewer(lastModified, previous.lastModified))
        return { status: 'unchanged', checkedAt, lastModified };
      const declared = Number(response.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > ctx.maxBytes) {
        throw unavailable(
          ctx,
          `the database is ${declared} bytes, over the ${ctx.maxBytes}-byte cap`,
          'too-large',
        );
      }
    }

    const expected = await publishedChecksum(ctx);
    if (previous?.sha256 && previous.sha256.toLowerCase() === expected) {
      return { status: 'unchanged', checkedAt, lastModified: lastModified ?? previous.lastModified };
    }

    const conditional: Record<string, string> = previous?.lastModified
      ? { 'if-modified-since': previous.lastModified }
      : {};
    const { response, url } = await send(ctx, source.databaseEndpoint(), 'GET', conditional);
    if (response.status === 304) {
      void response.body?.cancel().catch(() => {});
      return {
        status: 'unchanged',
        checkedAt,
        lastModified: response.headers.get('last-modified') ?? previous?.lastModified ?? null,
      };
    }
    if (!response.ok) refuseStatus(ctx, response, url, 'the download was');
    lastModified = response.headers.get('last-modified') ?? lastModified;
    const body = await readCapped(ctx, response, ctx.maxBytes, 'the download');
    if (body.sha256 !== expected) {
      throw unavailable(
        ctx,
        `the download's sha256 ${body.sha256} does not match the published ${expected}`,
        'checksum',
      );
    }
    const mmdb = source.packaging === 'tar.gz' ? await extractMmdb(ctx, body.bytes) : body.bytes;
    const opened = openMmdb(ctx, mmdb);
    return {
      status: 'downloaded',
      mmdb,
      lastModified,
      sha256: expected,
      edition: source.edition,
      ...opened,
      checkedAt,
    };
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) throw error;
    const name = (error as Error)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw unavailable(ctx, `no answer within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`, 'timeout');
    }
    const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
    const detail = [(error as Error)?.message, cause?.code ?? cause?.message].filter(Boolean).join(': ');
    throw unavailable(ctx, `the request failed (${detail || String(error)})`, 'network');
  }
}

// --- The shrink guard ---------------------------------------------------------------------------

/**
 * Well-known public addresses that every worldwide location or AS database has a record for: public
 * DNS resolvers, MaxMind's and RIPE's documented test addresses.
 */
export const DEFAULT_SAMPLE_ADDRESSES: readonly string[] = [
  '8.8.8.8',
  '1.1.1.1',
  '9.9.9.9',
  '208.67.222.222',
  '2.4.18.10',
  '81.2.69.142',
  '89.160.20.112',
  '216.160.83.56',
  '193.0.6.139',
  '2001:4860:4860::8888',
  '2606:4700:4700::1111',
  '2001:67c:2e8:22::c100:68b',
];

export type CandidateCheck =
  | { readonly ok: true; readonly networks: number }
  | { readonly ok: false; readonly reason: string };

type AnyRecord = Record<string, unknown>;

/** Whether a record places the address in a country: MaxMind (country or registered country), IPinfo, DB-IP. */
function hasCountry(record: AnyRecord | null): boolean {
  if (!record) return false;
  const iso = (value: unknown) => Boolean((value as { iso_code?: unknown } | undefined)?.iso_code);
  return iso(record.country) || iso(record.registered_country) || Boolean(record.country_code);
}

function lookup(reader: Reader<Response>, address: string): AnyRecord | null {
  if (address.includes(':') && reader.metadata.ipVersion === 4) return null;
  try {
    return reader.get(address) as AnyRecord | null;
  } catch {
    return null;
  }
}

/**
 * The shrink guard, run on a downloaded candidate before it replaces the database in service: refuses
 * it when it has fewer than (1 - maxShrink) of the current database's networks, or when an address of
 * `samples` that the current database places in a country (for an ASN database: has any record for)
 * has no such record in the candidate. When the data in service is not one MMDB file (the layer's
 * DB-IP pair, its compiled ASN ranges), `currentNetworks` (its manifest's count) is the yardstick of
 * the count alone. With neither, only the candidate's count is taken. `role` says which records count
 * for the sample addresses (default: the current database's type decides).
 */
export function checkCandidate(options: {
  candidate: Uint8Array;
  current: Uint8Array | null;
  currentNetworks?: number;
  role?: 'location' | 'network';
  samples?: readonly string[];
  maxShrink?: number;
}): CandidateCheck {
  const { candidate, current, samples = DEFAULT_SAMPLE_ADDRESSES, maxShrink = 0.5 } = options;
  const toBuffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  let networks: number;
  let candidateReader: Reader<Response>;
  try {
    networks = countMmdbNetworks(candidate);
    candidateReader = new Reader<Response>(toBuffer(candidate));
  } catch (error) {
    return { ok: false, reason: `the candidate does not open: ${(error as Error).message}` };
  }
  if (networks === 0) return { ok: false, reason: 'the candidate has no networks' };
  const shrunk = (currentNetworks: number): CandidateCheck | null => {
    const floor = (1 - maxShrink) * currentNetworks;
    return networks < floor
      ? {
          ok: false,
          reason: `the candidate has ${networks} networks, under ${Math.ceil(floor)} (${Math.round((1 - maxShrink) * 100)}% of the current ${currentNetworks})`,
        }
      : null;
  };
  let currentReader: Reader<Response>;
  let currentNetworks: number;
  try {
    if (!current) {
      return (options.currentNetworks ? shrunk(options.currentNetworks) : null) ?? { ok: true, networks };
    }
    currentReader = new Reader<Response>(toBuffer(current));
    currentNetworks = countMmdbNetworks(current);
  } catch {
    // A database in service that no longer opens is no yardstick: the candidate replaces it.
    return { ok: true, networks };
  }
  const refused = shrunk(currentNetworks);
  if (refused) return refused;
  const isAsn = options.role ? options.role === 'network' : /ASN/i.test(currentReader.metadata.databaseType);
  const has = (record: AnyRecord | null) => (isAsn ? record !== null : hasCountry(record));
  const lost = samples.filter(
    (address) => has(lookup(currentReader, address)) && !has(lookup(candidateReader, address)),
  );
  if (lost.length > 0) {
    const what = isAsn ? 'record' : 'country';
    return {
      ok: false,
      reason: `the candidate has no ${what} for ${lost.join(', ')}, which the current database has`,
    };
  }
  return { ok: true, networks };
}
