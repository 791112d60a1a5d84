import { isIP } from 'node:net';
import { normaliseHostname } from '../dns/host-name.js';
import type { HostnameRecord } from './hostname.js';
import { isWithin, MAX_HOSTNAME_OCTETS } from './hostname-labels.js';

// Requests on a custom hostname (docs/custom-hostnames.md): served exactly like the base address,
// but bound to the account that owns the hostname. An unknown Host is the base address.

/** Header our CloudFront Function copies the viewer's Host into (infra/constructs/custom-hostnames.ts). */
export const FORWARDED_HOST_HEADER = 'x-forwarded-host';

export type HostBinding =
  /** Not a custom hostname: the base address. */
  | { kind: 'base' }
  | { kind: 'active'; hostname: string }
  /** Known but not serving (pending, failed, being removed, or the plan lost the feature): 421. */
  | { kind: 'inactive'; hostname: string; message: string }
  /** Another account's hostname: 403. */
  | { kind: 'not_yours'; hostname: string };

/**
 * The host a request was addressed to. Behind our CloudFront the Host header is API Gateway's own
 * (CloudFront must send the origin's name), so the viewer's Host arrives as X-Forwarded-Host; that
 * header is believed only when the request proves it came through our edge (`trustedEdge`), else
 * anyone could send it straight to API Gateway. Locally the Host header itself is used.
 */
export function requestHost(headers: Record<string, string | undefined>, trustedEdge: boolean): string {
  const forwarded = trustedEdge ? headers[FORWARDED_HOST_HEADER] : undefined;
  return (forwarded ?? headers.host ?? '').split(',')[0]!.trim();
}

/** AWS's own names: the API Gateway and CloudFront domains a request may carry; never custom. */
const PROVIDER_SUFFIXES = ['amazonaws.com', 'cloudfront.net'];

/**
 * The hostname worth looking up for a Host value, or undefined when it cannot be a custom hostname
 * (empty, an IP address, a single label such as `localhost`, our base domain or a name under it,
 * AWS's own domains). This keeps the record lookup off the base address's requests.
 */
export function hostCandidate(rawHost: string, baseDomain: string): string | undefined {
  const host = rawHost.trim();
  if (host === '' || host.startsWith('[')) return undefined;
  const name = normaliseHostname(host.replace(/:\d*$/, ''));
  if (name.length > MAX_HOSTNAME_OCTETS || !/^[a-z0-9.-]+\.[a-z0-9-]+$/.test(name)) return undefined;
  if (isIP(name) !== 0) return undefined;
  if (isWithin(name, normaliseHostname(baseDomain))) return undefined;
  if (PROVIDER_SUFFIXES.some((suffix) => isWithin(name, suffix))) return undefined;
  return name;
}

/**
 * The binding of a request on a known hostname for the calling account. Ownership comes first:
 * another account's key is refused whatever state the hostname is in.
 */
export function bindHost(
  record: HostnameRecord | undefined,
  account: { accountId: string; customHostname: boolean },
): HostBinding {
  if (!record) return { kind: 'base' };
  if (record.accountId !== account.accountId) return { kind: 'not_yours', hostname: record.hostname };
  if (record.status !== 'active') {
    return {
      kind: 'inactive',
      hostname: record.hostname,
      message: `The custom hostname ${record.hostname} is not active (status ${record.status}); use the base address until it is.`,
    };
  }
  if (!account.customHostname) {
    return {
      kind: 'inactive',
      hostname: record.hostname,
      message: `The account's plan no longer includes custom hostnames; use the base address.`,
    };
  }
  return { kind: 'active', hostname: record.hostname };
}
