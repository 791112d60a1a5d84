import { labelProblem, MAX_HOSTNAME_OCTETS } from '../functions/lib/custom-hostnames/hostname-labels.js';
import { dnsServerProblem, parseDnsServers } from '../functions/lib/dns/resolver.js';
import { osaDistance } from '../functions/lib/email/typo.js';
import { IP_DATA_SOURCE_KEYS } from './ip-data-sources.js';

// The CDK context the app reads (`cdk deploy -c key=value`, or cdk.json's `context`; docs/deploy.md,
// "Context settings"), read strictly: a key the app does not read, or a value it cannot take, fails
// the synth with a message naming the key, instead of silently doing nothing. The stack checks it
// all before it builds anything (netintel-stack.ts), so a typo costs no bundling.

/** Configuration the deployer must fix (the CLI entry prints its message alone). */
export class StackConfigurationError extends Error {}

/** The on/off settings: `true` or `false`. */
export const CONTEXT_FLAGS = [
  'apiGatewayCloudWatchRole',
  'customHostnames',
  'cloudFrontLogs',
  'tracing',
] as const;
export type ContextFlag = (typeof CONTEXT_FLAGS)[number];

/** Every context key the app reads. */
export const CONTEXT_KEYS = [
  'notifyFrom',
  'alarmEmail',
  'dnsServers',
  'domainName',
  'certificateArn',
  'reservedConcurrency',
  ...CONTEXT_FLAGS,
  ...IP_DATA_SOURCE_KEYS,
] as const;
export type ContextKey = (typeof CONTEXT_KEYS)[number];

/**
 * Keys of the CDK CLI's own without a `:` (it keeps them in cdk.context.json and passes them to the
 * app): `cdk acknowledge`, `cdk cli-telemetry`, `cdk migrate`.
 */
const CDK_CLI_KEYS: readonly string[] = ['acknowledged-issue-numbers', 'cli-telemetry', 'cdk-migrate'];

/**
 * CDK's keys, never ours to refuse: feature flags (`@aws-cdk/core:stackRelativeExports`), the toolkit's
 * settings (`aws:cdk:bundling-stacks`), cached lookups (`availability-zones:account=...:region=...`).
 */
function isCdkKey(key: string): boolean {
  return key.startsWith('@') || key.includes(':') || CDK_CLI_KEYS.includes(key);
}

/** The known key a mistyped one most likely meant: the same but for case, or at most 2 edits away. */
function meant(key: string): string | undefined {
  const lower = key.toLowerCase();
  // The e-mail checks' edit distance (a swap of two neighbours is one edit), stopping past 2.
  const scored = CONTEXT_KEYS.map((known) => ({ known, d: osaDistance(lower, known.toLowerCase(), 2) }));
  const best = scored.sort((x, y) => x.d - y.d)[0];
  return best && best.d <= 2 ? best.known : undefined;
}

/** Refuses a context key the app does not read (a typo would silently change nothing). */
export function checkContextKeys(context: Record<string, unknown>): void {
  const unknown = Object.keys(context).filter(
    (key) => !isCdkKey(key) && !(CONTEXT_KEYS as readonly string[]).includes(key),
  );
  if (unknown.length === 0) return;
  const named = unknown.map((key) => {
    const guess = meant(key);
    return guess ? `${key} (did you mean ${guess}?)` : key;
  });
  throw new StackConfigurationError(
    `unknown context key${unknown.length > 1 ? 's' : ''} ${named.join(', ')}: netintel reads ` +
      `${CONTEXT_KEYS.join(', ')} (docs/deploy.md, "Context settings"); CDK's own keys, with a ':' or ` +
      'starting with @, are left to CDK',
  );
}

/**
 * An on/off setting: `true` or `false`, as a boolean (cdk.json) or a string (`-c key=true`), in any
 * case (`True`, `FALSE`). Unset is undefined; anything else, the empty string included, is an error.
 */
export function parseFlag(key: string, value: unknown): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (lower === 'true' || lower === 'false') return lower === 'true';
  }
  throw new StackConfigurationError(
    `${key}: ${JSON.stringify(value)} is not true or false (-c ${key}=true or -c ${key}=false)`,
  );
}

/**
 * A text setting: a string, undefined when unset or empty (`-c key=` unsets it). Any other value
 * (a number or a list in cdk.json) is an error.
 */
export function parseText(key: string, value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'string') return value;
  throw new StackConfigurationError(`${key}: ${JSON.stringify(value)} is not a string`);
}

/**
 * One e-mail address, roughly: something@domain.tld (also the NotifyFrom parameter's pattern). No
 * comma, semicolon or angle bracket: `ops@example.com,dev` is two addresses (or none), which SES and
 * SNS refuse only at deploy.
 */
export const EMAIL_ADDRESS = /^[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+$/;

/** Refuses a value of `key` that is not an e-mail address; `hint` says what to give instead. */
export function checkEmailAddress(key: string, value: string, hint: string): string {
  if (!EMAIL_ADDRESS.test(value)) {
    throw new StackConfigurationError(`${key} "${value}" is not an e-mail address. ${hint}`);
  }
  return value;
}

/**
 * The `dnsServers` setting (DNS_SERVERS): resolver addresses separated by commas or spaces, as the
 * functions split them (functions/lib/dns/resolver.ts parseDnsServers), each an IP address with an
 * optional port. A host name or a malformed entry is refused here rather than in every function.
 */
export function checkDnsServers(value: string): string {
  // The functions' own rules (functions/lib/dns/resolver.ts), so a value synth accepts starts.
  const entries = parseDnsServers(value);
  const bad = entries.filter((entry) => dnsServerProblem(entry) !== null);
  if (entries.length === 0 || bad.length > 0) {
    const what =
      entries.length === 0
        ? `"${value}" has no address`
        : `${bad.map((entry) => `"${entry}"`).join(', ')} ${bad.length > 1 ? 'are not IP addresses' : 'is not an IP address'}`;
    throw new StackConfigurationError(
      `dnsServers: ${what}: expected resolver IP addresses separated by commas, each as 1.1.1.1, ` +
        '1.1.1.1:53, 2606:4700::1111 or [2606:4700::1111]:53',
    );
  }
  return value;
}

/** The distribution's custom domain: both its name and its certificate, or neither. */
export interface CustomDomain {
  domainName: string;
  /** An ACM certificate in us-east-1 covering domainName. */
  certificateArn: string;
}

/**
 * An ACM certificate CloudFront can use: in us-east-1, CloudFront's only region for certificates
 * (any partition: aws, aws-cn, aws-us-gov).
 */
const EDGE_CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[A-Za-z0-9-]+$/;

/**
 * `domainName` and `certificateArn` together, or neither: one without the other used to be dropped
 * silently (no alias), while custom hostnames still took domainName as the base domain. Each is
 * checked here, before any function is bundled: CloudFront refused a certificate outside us-east-1
 * only after the bundling, with a stack trace, and took a URL as an alias until the deploy failed.
 */
export function customDomainOf(domainName?: string, certificateArn?: string): CustomDomain | undefined {
  if (domainName === undefined && certificateArn === undefined) return undefined;
  if (domainName === undefined || certificateArn === undefined) {
    const [given, missing] =
      domainName === undefined ? ['certificateArn', 'domainName'] : ['domainName', 'certificateArn'];
    throw new StackConfigurationError(
      `${given} is set without ${missing}: a custom domain needs both ` +
        "(-c domainName=api.example.com -c certificateArn=arn:aws:acm:us-east-1:...), or neither for the distribution's own domain",
    );
  }
  const problem = domainNameProblem(domainName);
  if (problem) {
    throw new StackConfigurationError(
      `domainName "${domainName}" is not a DNS name: ${problem} Give the name alone, e.g. -c domainName=api.example.com`,
    );
  }
  if (!EDGE_CERTIFICATE_ARN.test(certificateArn)) {
    throw new StackConfigurationError(
      `certificateArn "${certificateArn}" is not an ACM certificate in us-east-1, the only region CloudFront ` +
        'takes certificates from: expected arn:aws:acm:us-east-1:<account>:certificate/<id>',
    );
  }
  return { domainName, certificateArn };
}

/**
 * Why `name` cannot be the distribution's alias (letters, digits and inner hyphens in two or more
 * labels, at most 253 characters; a first label `*` for a wildcard), or undefined.
 */
function domainNameProblem(name: string): string | undefined {
  if (name.length > MAX_HOSTNAME_OCTETS) return `it is longer than ${MAX_HOSTNAME_OCTETS} characters.`;
  const labels = name.toLowerCase().split('.');
  if (labels.length < 2) return 'it has no domain.';
  for (const [i, label] of labels.entries()) {
    if (i === 0 && label === '*') continue;
    const problem = labelProblem(label);
    if (problem) return problem;
  }
  return undefined;
}
