import { SecretValue } from 'aws-cdk-lib';
import { chosenIpSources } from '../functions/lib/refresh/ip-sources.js';

// The deployer's choice of IP data sources for the data refresh (infra/constructs/data-refresh.ts),
// as stack props or `cdk deploy -c key=value`, turned into the refresh function's variables
// (functions/lib/runtime/config.ts, functions/lib/refresh/ip-sources.ts). Only the variables the
// deployer set are passed: the function's own defaults apply to the rest (with MaxMind credentials
// the location and network sources default to MaxMind, with an IPinfo token the network source to
// IPinfo). Credentials are Secrets Manager secrets the deployer created, named here; they reach the
// function as CloudFormation dynamic references (`{{resolve:secretsmanager:...}}`) resolved at deploy,
// like infra/constructs/secrets.ts: never in the template or the cloud assembly as plain text.

export const GEO_CITY_SOURCES = ['dbip', 'maxmind', 'ipinfo'] as const;
export const GEO_ASN_SOURCES = ['default', 'maxmind', 'ipinfo'] as const;
export type GeoCitySource = (typeof GEO_CITY_SOURCES)[number];
export type GeoAsnSource = (typeof GEO_ASN_SOURCES)[number];

/** The JSON fields of the credential secrets. */
export const MAXMIND_SECRET_FIELDS = {
  accountId: 'MAXMIND_ACCOUNT_ID',
  licenseKey: 'MAXMIND_LICENSE_KEY',
} as const;
export const IPINFO_SECRET_FIELDS = { token: 'IPINFO_TOKEN' } as const;

export interface IpDataSources {
  /** Location database: `dbip` (DB-IP Lite), `maxmind` (needs maxmindSecret), `ipinfo` (needs ipinfoSecret). GEO_CITY_SOURCE. */
  readonly geoCitySource?: GeoCitySource;
  /** Network (ASN) database: `default` (ip-location-db), `maxmind`, `ipinfo`. GEO_ASN_SOURCE. */
  readonly geoAsnSource?: GeoAsnSource;
  /** MaxMind edition of the location database (default GeoLite2-City; e.g. GeoIP2-City). MAXMIND_CITY_EDITION. */
  readonly maxmindCityEdition?: string;
  /** MaxMind edition of the network database (default GeoLite2-ASN). MAXMIND_ASN_EDITION. */
  readonly maxmindAsnEdition?: string;
  /** Operator geofeeds (RFC 8805): https URLs, comma-separated or as a list. GEOFEEDS. */
  readonly geofeeds?: string | readonly string[];
  /** https base URL mirroring every upstream (`<mirror>/host/path`). DATA_UPSTREAM_MIRROR. */
  readonly dataUpstreamMirror?: string;
  /**
   * Name or complete ARN of a Secrets Manager secret `{"accountId": "...", "licenseKey": "..."}`:
   * MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY, resolved at deploy.
   */
  readonly maxmindSecret?: string;
  /** Name or complete ARN of a Secrets Manager secret `{"token": "..."}`: IPINFO_TOKEN, resolved at deploy. */
  readonly ipinfoSecret?: string;
}

/** The props, which are also the context keys (`-c geoCitySource=maxmind`). */
export const IP_DATA_SOURCE_KEYS = [
  'geoCitySource',
  'geoAsnSource',
  'maxmindCityEdition',
  'maxmindAsnEdition',
  'geofeeds',
  'dataUpstreamMirror',
  'maxmindSecret',
  'ipinfoSecret',
] as const satisfies readonly (keyof IpDataSources)[];

/** Each prop, else its context value (`read`: a context string, undefined when unset or empty). */
export function ipDataSourcesOf(
  props: IpDataSources,
  read: (key: (typeof IP_DATA_SOURCE_KEYS)[number]) => string | undefined,
): IpDataSources {
  // Context values are unchecked strings here; ipDataEnvironment checks every one. Empty is unset.
  return Object.fromEntries(
    IP_DATA_SOURCE_KEYS.map((key) => [key, props[key] ?? read(key)]).filter(
      ([, v]) => v !== undefined && v !== '',
    ),
  ) as IpDataSources;
}

/** As MAXMIND_*_EDITION accept them (functions/lib/runtime/config.ts). */
const EDITION = /^[A-Za-z0-9-]{1,64}$/;
/** A secret name as Secrets Manager allows it. */
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
/**
 * A complete secret ARN: the name and the 6-character suffix Secrets Manager adds. A partial ARN
 * (without it) is refused: a dynamic reference does not find a secret by one.
 */
const SECRET_ARN =
  /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$/;

/** An https URL, else an error naming the key. */
function httpsUrl(key: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${key}: "${value}" is not a URL (expected https://...)`);
  }
  if (url.protocol !== 'https:') throw new Error(`${key}: "${value}" is not an https URL`);
  return value;
}

function oneOf<T extends string>(
  key: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`${key}: "${value}" is not one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** `{{resolve:secretsmanager:<id>:SecretString:<field>::}}` for a secret name or complete ARN. */
function secretField(key: string, secretId: string, field: string): string {
  if (secretId.startsWith('arn:')) {
    if (!SECRET_ARN.test(secretId)) {
      throw new Error(
        `${key}: "${secretId}" is not a complete Secrets Manager secret ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>); give the complete ARN or the secret's name`,
      );
    }
  } else if (!SECRET_NAME.test(secretId)) {
    throw new Error(`${key}: "${secretId}" is not a Secrets Manager secret name or ARN`);
  }
  // By name or complete ARN as given: what Secret.fromSecretCompleteArn(...).secretValueFromJson()
  // resolves to, without fromSecretNameV2's partial ARN, which a dynamic reference may not find.
  return SecretValue.secretsManager(secretId, { jsonField: field }).unsafeUnwrap();
}

/**
 * The refresh function's variables for these sources, only those set; throws an Error naming the
 * key for a value the refresh would refuse, or a source whose credentials are missing.
 */
export function ipDataEnvironment(sources: IpDataSources): Record<string, string> {
  const city = oneOf('geoCitySource', sources.geoCitySource, GEO_CITY_SOURCES);
  const asn = oneOf('geoAsnSource', sources.geoAsnSource, GEO_ASN_SOURCES);
  const uses = (source: string) => city === source || asn === source;
  if (uses('maxmind') && !sources.maxmindSecret) {
    throw new Error(
      'geoCitySource/geoAsnSource "maxmind" needs MaxMind credentials: -c maxmindSecret=<name or ARN of a Secrets Manager secret {"accountId": "...", "licenseKey": "..."}>',
    );
  }
  if (uses('ipinfo') && !sources.ipinfoSecret) {
    throw new Error(
      'geoCitySource/geoAsnSource "ipinfo" needs an IPinfo token: -c ipinfoSecret=<name or ARN of a Secrets Manager secret {"token": "..."}>',
    );
  }
  const env: Record<string, string> = {};
  if (city) env.GEO_CITY_SOURCE = city;
  if (asn) env.GEO_ASN_SOURCE = asn;
  // An edition of a database MaxMind does not provide would be set and never downloaded.
  const chosen = chosenIpSources(
    { GEO_CITY_SOURCE: city, GEO_ASN_SOURCE: asn },
    { maxmind: Boolean(sources.maxmindSecret), ipinfo: Boolean(sources.ipinfoSecret) },
  );
  for (const [key, variable, source, database] of [
    ['maxmindCityEdition', 'MAXMIND_CITY_EDITION', chosen.city, 'location'],
    ['maxmindAsnEdition', 'MAXMIND_ASN_EDITION', chosen.asn, 'network'],
  ] as const) {
    const edition = sources[key];
    if (edition === undefined) continue;
    if (!EDITION.test(edition))
      throw new Error(`${key}: "${edition}" is not a MaxMind edition id (e.g. GeoIP2-City)`);
    if (source !== 'maxmind') {
      throw new Error(
        `${key} is set, but the ${database} database comes from ${source}, not MaxMind: give -c maxmindSecret=<secret> (and -c ${database === 'location' ? 'geoCitySource' : 'geoAsnSource'}=maxmind if you set another), or leave ${key} out`,
      );
    }
    env[variable] = edition;
  }
  if (sources.geofeeds !== undefined) {
    const list = typeof sources.geofeeds === 'string' ? sources.geofeeds.split(',') : sources.geofeeds;
    const feeds = list.map((feed) => feed.trim()).filter(Boolean);
    for (const feed of feeds) {
      if (feed.includes(',')) throw new Error(`geofeeds: "${feed}" contains a comma`);
      httpsUrl('geofeeds', feed);
    }
    if (feeds.length > 0) env.GEOFEEDS = feeds.join(',');
  }
  if (sources.dataUpstreamMirror !== undefined) {
    env.DATA_UPSTREAM_MIRROR = httpsUrl('dataUpstreamMirror', sources.dataUpstreamMirror);
  }
  if (sources.maxmindSecret) {
    for (const [field, variable] of Object.entries(MAXMIND_SECRET_FIELDS)) {
      env[variable] = secretField('maxmindSecret', sources.maxmindSecret, field);
    }
  }
  if (sources.ipinfoSecret) {
    for (const [field, variable] of Object.entries(IPINFO_SECRET_FIELDS)) {
      env[variable] = secretField('ipinfoSecret', sources.ipinfoSecret, field);
    }
  }
  return env;
}
